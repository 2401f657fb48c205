// SPDX-License-Identifier: GPL-3.0-or-later

/// The settings section's script: the volume limit, the idle power-off, the spoken prompts and the
/// bedtime rules (when the box plays, a silent night, a daily budget, one more story) as the
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
            idlePowerOffMinutes: "switching off", speech: "spoken prompts", bedtime: "bedtime" };

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
            showBedtime(s.bedtime);
            // A box without a set clock counts the daily budget, but the times wait for the clock.
            $("bedtime-clock").hidden = !s.clockUnsynchronized;
            $("bedtime-clock").textContent = s.clockUnsynchronized ? "The box does not know the time yet: " +
              "the times apply once it does; the daily minutes count already." : "";
            $("bedtime-clock").title = s.clockUnsynchronized || "";
          }

          // The bedtime rules as the box has them (check-config's form), for the fields; what the
          // fields do not show (the allowed items, the reset hour, several windows) goes back as it came.
          let bedtime = null;
          let simpleWindow = true;
          function showBedtime(rules) {
            bedtime = rules;
            $("bedtime-on").checked = rules !== null;
            $("bedtime-fields").hidden = rules === null;
            const r = rules || {};
            const windows = Array.isArray(r.windows) ? r.windows : [];
            simpleWindow = windows.length === 0 || (windows.length === 1 && windows[0].days === "daily");
            $("bedtime-open").value = windows.length === 1 && simpleWindow ? windows[0].open : "";
            $("bedtime-close").value = windows.length === 1 && simpleWindow ? windows[0].close : "";
            const note = $("bedtime-windows-note");
            note.hidden = simpleWindow;
            note.textContent = simpleWindow ? "" : "The settings file says when the box plays, day by day (" +
              windows.map((w) => w.days + " " + w.open + "–" + w.close).join(", ") +
              "). Times set here replace them with the same times every day.";
            $("bedtime-wake").value = r.wake || "";
            $("bedtime-silent").value = r.wake ? r.silentFrom : "";
            $("bedtime-minutes").value = r.dailyMinutes || "";
            $("bedtime-one-more").value = r.oneMore === "track" ? "track"
              : (r.oneMore && r.oneMore.minutes ? String(r.oneMore.minutes) : "");
          }

          // The rules to send: the box's own, with the fields' values in place; null when off.
          function bedtimeChanges() {
            if (!$("bedtime-on").checked) return null;
            const out = {};
            for (const [key, value] of Object.entries(bedtime || {})) {
              if (value !== null && key !== "windows") out[key] = value;
            }
            const open = $("bedtime-open").value, close = $("bedtime-close").value;
            if (open && close) out.windows = [{ days: "daily", open, close }];
            else if (!simpleWindow) out.windows = bedtime.windows;
            delete out.wake; delete out.silentFrom;
            if ($("bedtime-wake").value) {
              out.wake = $("bedtime-wake").value;
              if ($("bedtime-silent").value) out.silentFrom = $("bedtime-silent").value;
            }
            delete out.dailyMinutes;
            if ($("bedtime-minutes").value) out.dailyMinutes = Number($("bedtime-minutes").value);
            const more = $("bedtime-one-more").value;
            delete out.oneMore;
            if (more === "track") out.oneMore = "track";
            else if (more) out.oneMore = { minutes: Number(more) };
            return out;
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
            if (data.problems.length === 0) line("The box found nothing wrong when it started.");
            else box.appendChild(problemList(data.problems));
            if (data.lines && data.lines.length) box.appendChild(fullReport(data.lines));
          }

          // A line of the check: what was found (the element `text`) and under it its fix, if any.
          function checkItem(text, fix) {
            const item = document.createElement("li");
            item.appendChild(text);
            if (fix) {
              const line = document.createElement("span");
              line.textContent = "Fix: " + fix;
              item.appendChild(line);
            }
            return item;
          }

          function problemList(problems) {
            const list = document.createElement("ul");
            for (const problem of problems) {
              const text = document.createElement("strong");
              text.textContent = problem.text;
              list.appendChild(checkItem(text, problem.fix));
            }
            return list;
          }

          // Every line of the check, as `kiosk-player doctor` prints it: ✓ passed, ✗ failed, – for
          // information; folded away under the problems.
          function fullReport(lines) {
            const details = document.createElement("details");
            details.id = "check-report";
            const summary = document.createElement("summary");
            summary.textContent = "The whole check (" + lines.length + " lines)";
            details.appendChild(summary);
            const list = document.createElement("ul");
            const symbols = { pass: "✓", fail: "✗", info: "–" };
            const words = { pass: "passed", fail: "failed", info: "note" };
            for (const l of lines) {
              const text = document.createElement("span");
              const found = (l.group ? l.group + ": " : "") + l.text;
              text.textContent = (symbols[l.status] || "–") + " " + found;
              text.setAttribute("aria-label", (words[l.status] || "note") + ": " + found);
              list.appendChild(checkItem(text, l.fix));
            }
            details.appendChild(list);
            return details;
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
            try { return await call("POST", path, chosen); } catch (e) {
              if (e.status === 413) throw new Error("This file is too large for the page: put it on a stick.");
              throw e;
            }
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
            $("bedtime-on").addEventListener("change", () => {
              $("bedtime-fields").hidden = !$("bedtime-on").checked;
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
                bedtime: bedtimeChanges(),
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
