// SPDX-License-Identifier: GPL-3.0-or-later

/// The page's three files, served from the box (no CDN, no framework): phone-first (360 px wide,
/// targets at least 48 px), labelled for screen readers (landmarks, labels, a live region for
/// what changes), text put in with `textContent` only, so that no name from a stick becomes markup.
///
/// Thread: constants; any.
enum PageAssets {
    static let index = Array(
        #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>KioskPlayer</title>
        <link rel="stylesheet" href="/app.css">
        <script src="/app.js" defer></script>
        <script src="/music.js" defer></script>
        <script src="/settings.js" defer></script>
        </head>
        <body>
        <header><h1>KioskPlayer</h1></header>
        <main>
        <section id="pairing" hidden aria-labelledby="pair-title">
          <h2 id="pair-title">Pair this phone</h2>
          <p>The box shows and says a six-digit code. Type it here.</p>
          <button id="ask-code" type="button">Show a code on the box</button>
          <form id="pair-form">
            <label for="code">Code from the box</label>
            <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
            <button type="submit">Pair</button>
          </form>
        </section>
        <section id="playing" hidden aria-labelledby="playing-title">
          <h2 id="playing-title">Now playing</h2>
          <p id="title" class="big">–</p>
          <p id="artist"></p>
          <div class="controls" role="group" aria-label="Playback">
            <button id="previous" type="button" aria-label="Previous track">⏮</button>
            <button id="toggle" type="button" aria-label="Play">▶</button>
            <button id="next" type="button" aria-label="Next track">⏭</button>
          </div>
          <label for="volume">Volume <span id="volume-value"></span></label>
          <input id="volume" type="range" min="0" max="100" step="1">
          <p id="volume-limit" class="hint"></p>
        </section>
        <section id="cards" hidden aria-labelledby="cards-title">
          <h2 id="cards-title">Cards</h2>
          <p class="hint">Tap a card on the box: it appears here.</p>
          <div id="last-card" aria-live="polite"><p id="last-card-text">No card shown yet.</p></div>
          <form id="link-form" hidden>
            <label for="album">Album for card <span id="link-card"></span></label>
            <select id="album" required></select>
            <label for="mode">How each tap plays</label>
            <select id="mode">
              <option value="album">The album (from its bookmark)</option>
              <option value="track-per-tap">One track per tap</option>
              <option value="random-track">A random track</option>
              <option value="continue">Where it was left</option>
            </select>
            <button type="submit">Link the card</button>
          </form>
          <h3>Linked cards</h3>
          <ul id="card-list"></ul>
        </section>
        <section id="settings" hidden aria-labelledby="settings-title">
          <h2 id="settings-title">Settings</h2>
          <form id="settings-form">
            <label for="volume-max">Volume limit <span id="volume-max-value"></span></label>
            <input id="volume-max" type="range" min="1" max="100" step="1">
            <label for="idle-off">Switch off after this long unused</label>
            <select id="idle-off">
              <option value="0">Never</option>
              <option value="10">10 minutes</option>
              <option value="30">30 minutes</option>
              <option value="60">1 hour</option>
              <option value="120">2 hours</option>
            </select>
            <label for="speech-mode">Spoken prompts</label>
            <select id="speech-mode">
              <option value="auto">Only when the box has no screen</option>
              <option value="prompts">Always</option>
              <option value="names">Always, with album names while browsing</option>
              <option value="off">Off</option>
            </select>
            <fieldset id="bedtime">
              <legend>Bedtime</legend>
              <label class="check" for="bedtime-on"><input id="bedtime-on" type="checkbox"> Bedtime rules</label>
              <div id="bedtime-fields">
                <p id="bedtime-clock" class="hint" hidden></p>
                <p id="bedtime-windows-note" class="hint" hidden></p>
                <div class="pair">
                  <span><label for="bedtime-open">Plays from</label><input id="bedtime-open" type="time"></span>
                  <span><label for="bedtime-close">until</label><input id="bedtime-close" type="time"></span>
                </div>
                <div class="pair">
                  <span><label for="bedtime-silent">Silent from</label><input id="bedtime-silent" type="time"></span>
                  <span><label for="bedtime-wake">until</label><input id="bedtime-wake" type="time"></span>
                </div>
                <label for="bedtime-minutes">Listening a day, in minutes (empty: no limit)</label>
                <input id="bedtime-minutes" type="number" min="1" max="1440" inputmode="numeric">
                <label for="bedtime-one-more">One more story at bedtime</label>
                <select id="bedtime-one-more">
                  <option value="">No</option>
                  <option value="track">One more track</option>
                  <option value="5">5 more minutes</option>
                  <option value="10">10 more minutes</option>
                  <option value="20">20 more minutes</option>
                </select>
              </div>
            </fieldset>
            <button type="submit">Save the settings</button>
          </form>
          <p id="settings-note" class="hint" aria-live="polite"></p>
          <h3>The box's check</h3>
          <div id="problems"><p>…</p></div>
          <h3>Cards, bookmarks and settings</h3>
          <p class="hint">Keep a copy on this phone, or give one back: from this box or another.</p>
          <a id="set-save" class="button" href="/api/set" download="kiosk-set.json">Save a copy to this phone</a>
          <input id="set-file" type="file" accept=".json,application/json" class="file">
          <label for="set-file" class="button">Load a saved copy</label>
          <div id="set-offer" hidden>
            <p id="set-summary"></p>
            <button id="set-import" type="button">Replace this box's cards and bookmarks</button>
            <button id="set-cancel" type="button">Keep them as they are</button>
          </div>
          <p id="set-note" class="hint" aria-live="polite"></p>
        </section>
        <section id="music" hidden aria-labelledby="music-title">
          <h2 id="music-title">Music</h2>
          <nav aria-label="Folder"><ol id="music-path" class="path"></ol></nav>
          <ul id="music-list"></ul>
          <p id="music-space" class="hint"></p>
          <label for="music-into">Into a new folder here (optional)</label>
          <input id="music-into" type="text" maxlength="100" autocomplete="off" placeholder="For example: Bedtime stories">
          <input id="music-files" type="file" multiple accept="audio/*,.flac,.mp3,.ogg,.oga,.opus,.wav,.aif,.aiff,.m4a,.m4b,.mp4,.jpg,.jpeg,.png" class="file">
          <label for="music-files" class="button">Add music files</label>
          <input id="music-folder" type="file" webkitdirectory multiple class="file">
          <label for="music-folder" class="button">Add a whole folder</label>
          <div id="music-progress" aria-live="polite"></div>
        </section>
        <p id="message" role="status" aria-live="polite"></p>
        </main>
        </body>
        </html>

        """#.utf8)

    static let style = Array(
        #"""
        * { box-sizing: border-box; }
        body { margin: 0; font: 18px/1.4 system-ui, sans-serif; background: #fafafa; color: #111; }
        header { background: #1d3557; color: #fff; padding: 8px 16px; }
        h1 { font-size: 22px; margin: 0; }
        main { padding: 8px 16px 32px; max-width: 640px; margin: 0 auto; }
        section { margin: 16px 0; }
        h2 { font-size: 20px; margin: 8px 0; }
        h3 { font-size: 18px; }
        button, select, input { font: inherit; min-height: 48px; }
        button { min-width: 48px; padding: 8px 16px; border: 2px solid #1d3557; border-radius: 8px;
          background: #fff; color: #1d3557; }
        button:focus-visible, select:focus-visible, input:focus-visible { outline: 3px solid #e63946; }
        form { display: flex; flex-direction: column; gap: 8px; margin: 8px 0; }
        input#code { font-size: 28px; letter-spacing: 6px; text-align: center; }
        .controls { display: flex; gap: 12px; margin: 12px 0; }
        .controls button { flex: 1; font-size: 28px; }
        input[type=range] { width: 100%; }
        .big { font-size: 22px; font-weight: 600; margin: 4px 0; }
        .hint { color: #555; font-size: 16px; }
        #last-card { border: 2px dashed #1d3557; border-radius: 8px; padding: 8px 12px; }
        ul { list-style: none; padding: 0; }
        li { display: flex; align-items: center; justify-content: space-between; gap: 8px;
          border-bottom: 1px solid #ddd; padding: 6px 0; }
        li span { overflow-wrap: anywhere; }
        #message { min-height: 1.4em; color: #9d0208; }
        label.button, a.button { display: flex; text-decoration: none; align-items: center; justify-content: center; min-height: 48px;
          margin: 8px 0; border: 2px solid #1d3557; border-radius: 8px; background: #fff; color: #1d3557; }
        input.file { position: absolute; width: 1px; height: 1px; opacity: 0; }
        input.file:focus-visible + label, label.button:hover, a.button:hover, a.button:focus-visible { outline: 3px solid #e63946; }
        ol.path { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; padding: 0; margin: 4px 0; }
        ol.path li { border: 0; padding: 0; }
        ol.path button { padding: 4px 12px; }
        progress { width: 100%; height: 16px; }
        #music-into { width: 100%; padding: 0 8px; }
        #problems li { flex-direction: column; align-items: flex-start; }
        #check-report summary { min-height: 48px; display: flex; align-items: center; cursor: pointer; }
        .problem { color: #9d0208; }
        fieldset { border: 1px solid #ccc; border-radius: 8px; display: flex; flex-direction: column; gap: 8px; }
        label.check { display: flex; align-items: center; gap: 12px; min-height: 48px; }
        label.check input { width: 44px; height: 44px; margin: 0; }
        li .buttons { display: flex; gap: 8px; }
        form.rename { flex-direction: row; flex: 1; margin: 0; }
        form.rename input { flex: 1; min-width: 0; padding: 0 8px; }
        #bedtime-fields { display: flex; flex-direction: column; gap: 8px; }
        #bedtime-fields[hidden] { display: none; }
        .pair { display: flex; gap: 12px; }
        .pair span { flex: 1; display: flex; flex-direction: column; }
        .pair input { width: 100%; }

        """#.utf8)

    static let script = Array(
        #"""
        "use strict";
        let csrf = null;
        let lastCard = null;
        let albumsLoaded = false;
        const $ = (id) => document.getElementById(id);
        function say(text) { $("message").textContent = text || ""; }

        async function call(method, path, body) {
          const options = { method, headers: {}, credentials: "same-origin" };
          if (body !== undefined) {
            options.headers["Content-Type"] = "application/json";
            // A file the parent chose (a saved set) goes as it is; anything else as JSON.
            options.body = body instanceof Blob ? body : JSON.stringify(body);
          }
          if (method !== "GET" && csrf) options.headers["X-CSRF-Token"] = csrf;
          const response = await fetch(path, options);
          let data = {};
          try { data = await response.json(); } catch (e) { data = {}; }
          if (!response.ok) {
            const error = new Error(data.error || ("HTTP " + response.status));
            error.status = response.status;
            throw error;
          }
          return data;
        }

        function showPairing() {
          $("pairing").hidden = false;
          $("playing").hidden = true;
          $("cards").hidden = true;
          $("music").hidden = true;
          $("settings").hidden = true;
        }

        async function start() {
          try {
            const session = await call("GET", "/api/session");
            csrf = session.csrf;
          } catch (e) {
            showPairing();
            return;
          }
          $("pairing").hidden = true;
          $("playing").hidden = false;
          $("cards").hidden = false;
          await Promise.all([refreshStatus(), refreshCards(), window.showMusic ? window.showMusic("") : null,
            window.showSettings ? window.showSettings() : null]);
          follow();
        }

        function showStatus(s) {
          $("title").textContent = s.title || "Nothing playing";
          $("artist").textContent = [s.artist, s.album].filter(Boolean).join(" · ");
          const playing = s.state === "play";
          $("toggle").textContent = playing ? "⏸" : "▶";
          $("toggle").setAttribute("aria-label", playing ? "Pause" : "Play");
          $("toggle").dataset.action = playing ? "pause" : (s.state === "pause" ? "resume" : "play");
          const v = $("volume");
          if (s.volumeMin !== null) v.min = s.volumeMin;
          if (s.volumeMax !== null) v.max = s.volumeMax;
          if (document.activeElement !== v && s.volume !== null) v.value = s.volume;
          $("volume-value").textContent = s.volume === null ? "" : s.volume + " %";
          $("volume-limit").textContent = "The box's limits: " + s.volumeMin + "–" + s.volumeMax + " %";
        }

        async function refreshStatus() {
          try { showStatus(await call("GET", "/api/status")); } catch (e) { say(e.message); }
        }

        function showLast(last) {
          lastCard = last;
          if (!last) return;
          $("last-card-text").textContent = "Card " + last.card + (last.linked ? " is linked." : " is not linked yet.");
          $("link-card").textContent = last.card;
          $("link-form").hidden = false;
          loadAlbums();
        }

        async function loadAlbums() {
          if (albumsLoaded) return;
          const data = await call("GET", "/api/collections?category=album");
          const select = $("album");
          select.textContent = "";
          for (const c of data.collections) {
            const option = document.createElement("option");
            option.value = c.key;
            option.textContent = c.subtitle ? c.name + " — " + c.subtitle : c.name;
            select.appendChild(option);
          }
          albumsLoaded = true;
        }

        function showCards(data) {
          const list = $("card-list");
          list.textContent = "";
          for (const c of data.cards) {
            const item = document.createElement("li");
            const text = document.createElement("span");
            text.textContent = c.card + ": " + c.summary + (c.mode && c.mode !== "album" ? " (" + c.mode + ")" : "");
            const button = document.createElement("button");
            button.type = "button";
            button.textContent = "Unlink";
            button.setAttribute("aria-label", "Unlink card " + c.card);
            button.addEventListener("click", async () => {
              try { showCards(await call("POST", "/api/cards/unlink", { card: c.card })); say("Card unlinked."); }
              catch (e) { say(e.message); }
            });
            const buttons = document.createElement("span");
            buttons.className = "buttons";
            if (c.name) buttons.append(renameButton(c, item, text));
            buttons.append(button);
            item.append(text, buttons);
            list.appendChild(item);
          }
          if (data.last) showLast(data.last);
        }

        // A card's name, what the box shows and says for it: edited in place, saved on Enter or Save.
        function renameButton(c, item, text) {
          const button = document.createElement("button");
          button.type = "button";
          button.textContent = "Rename";
          button.setAttribute("aria-label", "Rename card " + c.card);
          button.addEventListener("click", () => {
            const form = document.createElement("form");
            form.className = "rename";
            const input = document.createElement("input");
            input.type = "text";
            input.maxLength = 100;
            input.value = c.name;
            input.setAttribute("aria-label", "New name for card " + c.card);
            const save = document.createElement("button");
            save.type = "submit";
            save.textContent = "Save";
            form.append(input, save);
            form.addEventListener("submit", async (event) => {
              event.preventDefault();
              try {
                showCards(await call("POST", "/api/cards/rename", { card: c.card, name: input.value }));
                say("Card renamed.");
              } catch (e) { say(e.message); }
            });
            item.replaceChildren(form);
            input.focus();
          });
          return button;
        }

        async function refreshCards() {
          try { showCards(await call("GET", "/api/cards")); } catch (e) { say(e.message); }
        }

        function follow() {
          const source = new EventSource("/api/events");
          // What happened while the stream was closed: read once it is open.
          source.onopen = () => { refreshStatus(); refreshCards(); };
          source.addEventListener("card", (event) => {
            const last = JSON.parse(event.data);
            if (last.card) { showLast(last); refreshCards(); }
          });
          source.addEventListener("status", () => refreshStatus());
          source.onerror = () => {
            source.close();
            setTimeout(() => { call("GET", "/api/session").then(follow, showPairing); }, 3000);
          };
        }

        document.addEventListener("DOMContentLoaded", () => {
          $("ask-code").addEventListener("click", async () => {
            try { await call("POST", "/api/pair/code", {}); say("Look at the box, or listen: it says the code."); }
            catch (e) { say(e.message); }
          });
          $("pair-form").addEventListener("submit", async (event) => {
            event.preventDefault();
            try {
              const data = await call("POST", "/api/pair", { code: $("code").value.trim() });
              csrf = data.csrf;
              say("");
              start();
            } catch (e) { say(e.message); }
          });
          for (const id of ["previous", "next", "toggle"]) {
            $(id).addEventListener("click", async () => {
              const action = id === "toggle" ? ($("toggle").dataset.action || "play") : id;
              try { showStatus(await call("POST", "/api/control", { action })); } catch (e) { say(e.message); }
            });
          }
          $("volume").addEventListener("change", async () => {
            try { showStatus(await call("POST", "/api/volume", { volume: Number($("volume").value) })); }
            catch (e) { say(e.message); }
          });
          $("link-form").addEventListener("submit", async (event) => {
            event.preventDefault();
            if (!lastCard) return;
            try {
              showCards(await call("POST", "/api/cards/link",
                { card: lastCard.card, category: "album", key: $("album").value, mode: $("mode").value }));
              say("Card linked.");
            } catch (e) { say(e.message); }
          });
          start();
        });

        """#.utf8)
}
