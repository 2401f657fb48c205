// SPDX-License-Identifier: GPL-3.0-or-later

/// The settings section's script: the volume limit, the idle power-off and the spoken prompts as the
/// player has them, saved in one request; the player checks them with the config's parser and the
/// page says which apply now and which from the next start.
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

          async function showSettings() {
            try {
              show(await call("GET", "/api/settings"));
              $("settings").hidden = false;
            } catch (e) { say(e.message); }
          }
          window.showSettings = showSettings;

          document.addEventListener("DOMContentLoaded", () => {
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
