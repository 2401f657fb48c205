// SPDX-License-Identifier: GPL-3.0-or-later

/// The settings section's script: the volume limit, the idle power-off and the spoken prompts as the
/// player has them, saved in one request; the player checks them with the config's parser and the
/// page says which apply now and which from the next start. Under them, the box's check: what the
/// doctor found wrong at start, with the fixes; and the box's set saved to the phone and given back
/// (checked, shown, then imported only when the parent says so).
///
/// Thread: constants; any.
extension PageAssets {
    static let settingsScript = Array(
        #"""
        "use strict";
        (() => {
          const $ = (id) => document.getElementById(id);
          const names = { volumeMin: "the lowest volume", volumeMax: "the volume limit",
            idlePowerOffMinutes: "switching off", speech: "spoken prompts" };

          function show(s) {
            $("volume-max").value = s.volumeMax;
            $("volume-max-value").textContent = s.volumeMax + " %";
            const idle = $("idle-off");
            if (![...idle.options].some((o) => Number(o.value) === s.idlePowerOffMinutes)) {
              const option = document.createElement("option");
              option.value = s.idlePowerOffMinutes;
              option.textContent = s.idlePowerOffMinutes + " minutes";
              idle.appendChild(option);
            }
            idle.value = String(s.idlePowerOffMinutes);
            $("speech-mode").value = s.speechMode;
          }

          // What the box's check at start found wrong, each with its fix.
          function showProblems(data) {
            const box = $("problems");
            box.textContent = "";
            const line = (text, className) => {
              const p = document.createElement("p");
              p.textContent = text;
              if (className) p.className = className;
              box.appendChild(p);
            };
            if (data.powerWarning) line(data.powerWarning + ": use the board's own power supply.", "problem");
            if (!data.checked) { line("The box checks itself at start; it has not finished yet."); return; }
            if (data.problems.length === 0) { line("The box found nothing wrong when it started."); return; }
            const list = document.createElement("ul");
            for (const problem of data.problems) {
              const item = document.createElement("li");
              const text = document.createElement("strong");
              text.textContent = problem.text;
              item.appendChild(text);
              if (problem.fix) {
                const fix = document.createElement("span");
                fix.textContent = "Fix: " + problem.fix;
                item.appendChild(fix);
              }
              list.appendChild(item);
            }
            box.appendChild(list);
          }

          async function showSettings() {
            try {
              show(await call("GET", "/api/settings"));
              $("settings").hidden = false;
              showProblems(await call("GET", "/api/problems"));
            } catch (e) { say(e.message); }
          }
          window.showSettings = showSettings;

          // A saved copy given back: the box checks it whole and says what it holds, then the
          // parent chooses; nothing changes before that.
          let chosen = null;
          async function giveSet(path) {
            const response = await fetch(path, { method: "POST", body: chosen, credentials: "same-origin",
              headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf } });
            let data = {};
            try { data = await response.json(); } catch (e) { data = {}; }
            if (response.status === 413) throw new Error("This file is too large for the page: put it on a stick.");
            if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
            return data;
          }

          document.addEventListener("DOMContentLoaded", () => {
            $("set-file").addEventListener("change", async () => {
              chosen = $("set-file").files[0] || null;
              $("set-file").value = "";
              $("set-offer").hidden = true;
              if (!chosen) return;
              $("set-note").textContent = "Checking " + chosen.name + "…";
              try {
                const answer = await giveSet("/api/set/check");
                $("set-summary").textContent = chosen.name + " holds " + answer.summary + ".";
                $("set-note").textContent = "";
                $("set-offer").hidden = false;
              } catch (e) { $("set-note").textContent = chosen.name + ": " + e.message; chosen = null; }
            });
            $("set-cancel").addEventListener("click", () => {
              chosen = null;
              $("set-offer").hidden = true;
              $("set-note").textContent = "Nothing changed.";
            });
            $("set-import").addEventListener("click", async () => {
              $("set-offer").hidden = true;
              try {
                const answer = await giveSet("/api/set/import");
                $("set-note").textContent = "Imported: " + answer.summary +
                  ". The box can undo it: hold Select while it says so.";
                refreshCards();
                showSettings();
              } catch (e) { $("set-note").textContent = e.message; }
              chosen = null;
            });
            $("volume-max").addEventListener("input", () => {
              $("volume-max-value").textContent = $("volume-max").value + " %";
            });
            $("settings-form").addEventListener("submit", async (event) => {
              event.preventDefault();
              const mode = $("speech-mode").value;
              const changes = {
                volumeMax: Number($("volume-max").value),
                idlePowerOffMinutes: Number($("idle-off").value),
                speech: { mode: mode === "auto" ? null : mode },
              };
              try {
                const s = await call("POST", "/api/settings", changes);
                show(s);
                const later = s.nextStart.map((k) => names[k] || k);
                $("settings-note").textContent = "Saved." +
                  (later.length ? " From the next start: " + later.join(", ") + "." : "");
                refreshStatus();
              } catch (e) { $("settings-note").textContent = e.message; }
            });
          });
        })();

        """#.utf8)
}
