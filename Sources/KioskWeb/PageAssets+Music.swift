// SPDX-License-Identifier: GPL-3.0-or-later

/// The music section's script: the folders of the box's music folder, uploads of files and whole
/// folders in 256 KiB pieces (a piece that fails is sent again from where the box says the file
/// ends, so a dropped Wi-Fi or a reload costs one piece, not the file), deletions. Text goes in
/// with `textContent` only.
///
/// Thread: constants; any.
extension PageAssets {
    static let musicScript = Array(
        #"""
        "use strict";
        (() => {
          const piece = 256 * 1024;
          let folder = "";
          const $ = (id) => document.getElementById(id);
          const sizeText = (n) => n >= 1073741824 ? (n / 1073741824).toFixed(1) + " GB"
            : n >= 1048576 ? (n / 1048576).toFixed(1) + " MB" : Math.ceil(n / 1024) + " kB";

          async function request(method, path, body, type) {
            const headers = { "X-CSRF-Token": csrf };
            if (type) headers["Content-Type"] = type;
            const response = await fetch(path, { method, headers, body, credentials: "same-origin" });
            let data = {};
            try { data = await response.json(); } catch (e) { data = {}; }
            return { ok: response.ok, status: response.status, data };
          }

          function crumbs() {
            const list = $("music-path");
            list.textContent = "";
            const parts = folder ? folder.split("/") : [];
            const names = ["Music"].concat(parts);
            names.forEach((name, i) => {
              const item = document.createElement("li");
              const button = document.createElement("button");
              button.type = "button";
              button.textContent = name;
              if (i === names.length - 1) button.setAttribute("aria-current", "location");
              button.addEventListener("click", () => showMusic(parts.slice(0, i).join("/")));
              item.appendChild(button);
              list.appendChild(item);
            });
          }

          function showListing(data) {
            folder = data.folder;
            crumbs();
            const list = $("music-list");
            list.textContent = "";
            if (data.entries.length === 0) {
              const item = document.createElement("li");
              item.textContent = "Nothing here yet.";
              list.appendChild(item);
            }
            for (const e of data.entries) {
              const item = document.createElement("li");
              const path = folder ? folder + "/" + e.name : e.name;
              let label;
              if (e.folder) {
                label = document.createElement("button");
                label.type = "button";
                label.textContent = "▸ " + e.name;
                label.setAttribute("aria-label", "Open folder " + e.name);
                label.addEventListener("click", () => showMusic(path));
              } else {
                label = document.createElement("span");
                label.textContent = e.name + " (" + sizeText(e.size) + ")";
              }
              const remove = document.createElement("button");
              remove.type = "button";
              remove.textContent = "Delete";
              remove.setAttribute("aria-label", "Delete " + e.name);
              remove.addEventListener("click", async () => {
                if (!confirm("Delete " + e.name + (e.folder ? " and everything in it" : "") + " from the box?")) return;
                const r = await request("POST", "/api/music/delete", JSON.stringify({ path }), "application/json");
                if (r.ok) { showListing(r.data); say(e.name + " deleted."); } else say(r.data.error || "HTTP " + r.status);
              });
              item.append(label, remove);
              list.appendChild(item);
            }
            $("music-space").textContent = "Free on the box: " + sizeText(data.free) +
              ". Largest file: " + sizeText(data.maxFileBytes) + ".";
          }

          async function showMusic(path) {
            const r = await request("GET", "/api/music?folder=" + encodeURIComponent(path));
            if (r.status === 404 && !r.data.folder) { $("music").hidden = true; return; }
            $("music").hidden = false;
            if (r.ok) showListing(r.data); else say(r.data.error || "HTTP " + r.status);
          }
          window.showMusic = showMusic;

          // One file, piece by piece from where the box has it; up to 5 tries per piece.
          async function upload(file, path, row) {
            const bar = row.querySelector("progress");
            const note = row.querySelector("span");
            let r = await request("POST", "/api/music/upload", JSON.stringify({ path, size: file.size }), "application/json");
            if (!r.ok) throw new Error(r.data.error || "HTTP " + r.status);
            const id = r.data.id;
            let received = r.data.received;
            let tries = 0;
            while (received < file.size) {
              bar.value = received / file.size;
              const chunk = file.slice(received, Math.min(file.size, received + piece));
              try {
                r = await request("PUT", "/api/music/upload?id=" + encodeURIComponent(id) + "&path=" +
                  encodeURIComponent(path) + "&offset=" + received, chunk, "application/octet-stream");
              } catch (e) {
                r = { ok: false, status: 0, data: { error: "the box did not answer" } };
              }
              if (r.ok) { received = r.data.received; tries = 0; continue; }
              if (r.status === 409 && typeof r.data.received === "number") { received = r.data.received; continue; }
              if (r.status !== 0 && r.status < 500) throw new Error(r.data.error || "HTTP " + r.status);
              if (++tries > 5) throw new Error(r.data.error || "the box did not answer");
              note.textContent = path + ": trying again…";
              await new Promise((done) => setTimeout(done, 1000 * tries));
            }
            bar.value = 1;
          }

          async function uploadAll(files) {
            const progress = $("music-progress");
            let done = 0, failed = 0;
            for (const file of files) {
              const name = file.webkitRelativePath || file.name;
              const into = $("music-into").value.trim().replace(/\//g, "_");
              const base = [folder, into].filter(Boolean).join("/");
              const path = base ? base + "/" + name : name;
              const row = document.createElement("p");
              const note = document.createElement("span");
              note.textContent = path;
              const bar = document.createElement("progress");
              bar.max = 1;
              bar.value = 0;
              bar.setAttribute("aria-label", "Upload of " + name);
              row.append(note, bar);
              progress.appendChild(row);
              try {
                await upload(file, path, row);
                note.textContent = path + ": on the box.";
                done++;
              } catch (e) {
                note.textContent = path + ": " + e.message;
                failed++;
              }
            }
            say(done + " file" + (done === 1 ? "" : "s") + " added" + (failed ? ", " + failed + " not taken." : "."));
            $("music-into").value = "";
            showMusic(folder);
          }

          document.addEventListener("DOMContentLoaded", () => {
            for (const id of ["music-files", "music-folder"]) {
              $(id).addEventListener("change", (event) => {
                const files = Array.from(event.target.files);
                event.target.value = "";
                $("music-progress").textContent = "";
                uploadAll(files);
              });
            }
          });
        })();

        """#.utf8)
}
