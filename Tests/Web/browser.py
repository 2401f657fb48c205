#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The phone page in a real browser: Debian's Chromium (headless, 360×740, a phone's size) driven by
Selenium through chromedriver, against a real kiosk-player demo and kiosk-web. Pairs with the code
the box shows, sees a card shown on the box appear in the page (server-sent events), links it to an
album in track-per-tap mode, shows it again and sees the player play that album's first track alone,
changes the volume from the page and sees the player obey, uploads a FLAC through the page's file
picker into a new folder and sees the player play it. Keeps screenshots at 360×740
(.build/web-test/, or WEB_TEST_ARTEFACTS) and compares them with Tests/Goldens/Web (screens.py). Prints the figures; exits 1 if a check failed.
Usage: Tests/Web/browser.py  (make browser-test; needs deploy/install-deps.sh --browser-test)"""
import json
import os
import re
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

sys.path.insert(0, os.path.dirname(__file__))
from box import REPO, Box  # noqa: E402
import screens  # noqa: E402

# The box's event script shows the card at these times after the player's start: the first after the
# page is paired (Chromium's first start takes 10-15 s here), the second after it is linked.
CARD_AT_MS = 30_000
AGAIN_AT_MS = 50_000
failures = []


T0 = time.monotonic()


def check(name, ok, detail=""):
    print(f"{time.monotonic() - T0:6.1f} s " + ("PASS " if ok else "FAIL ") + name + ("" if ok else "  -- " + str(detail)))
    if not ok:
        failures.append(name)


def main():
    artefacts = os.environ.get("WEB_TEST_ARTEFACTS", os.path.join(REPO, ".build", "web-test"))
    os.makedirs(artefacts, exist_ok=True)
    started = time.monotonic()
    box = Box(card_at_ms=CARD_AT_MS, again_at_ms=AGAIN_AT_MS)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=500,900"):
        options.add_argument(a)
    # A phone's screen: desktop Chromium keeps windows at least 500 px wide, so the viewport is
    # emulated as DevTools does (360×740 CSS pixels, one device pixel each, touch).
    options.add_experimental_option(
        "mobileEmulation", {"deviceMetrics": {"width": 360, "height": 740, "pixelRatio": 1.0, "touch": True}})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        run(box, driver, artefacts)
    finally:
        driver.quit()
        box.close()
    print(f"figures: whole test {time.monotonic() - started:.1f} s")
    print(f"browser: {len(failures)} failed" if failures else "browser: all passed")
    return 1 if failures else 0


def text(driver, id):
    return driver.find_element(By.ID, id).text


def run(box, driver, artefacts):
    wait = WebDriverWait(driver, 20, poll_frequency=0.05)
    driver.get(f"http://127.0.0.1:{box.port}/")
    wait.until(lambda d: d.find_element(By.ID, "pairing").is_displayed())
    check("an unpaired phone sees only the pairing form",
          not driver.find_element(By.ID, "playing").is_displayed()
          and not driver.find_element(By.ID, "cards").is_displayed())

    # Accessibility: every control has a name a screen reader says; targets at least 44 px.
    unnamed = driver.execute_script("""
        const out = [];
        for (const e of document.querySelectorAll('button, input, select')) {
          const labelled = e.getAttribute('aria-label') || (e.id && document.querySelector('label[for="' + e.id + '"]'))
            || e.textContent.trim();
          if (!labelled) out.push(e.outerHTML.slice(0, 60));
        }
        return out;""")
    check("every control is labelled for screen readers", unnamed == [], unnamed)
    driver.save_screenshot(os.path.join(artefacts, "phone-360x740-pairing.png"))

    # Pairing: ask the box for a code, read it where the box shows it (its log), type it.
    driver.find_element(By.ID, "ask-code").click()
    code = box.code()
    driver.find_element(By.ID, "code").send_keys(code)
    driver.find_element(By.CSS_SELECTOR, "#pair-form button").click()
    wait.until(lambda d: d.find_element(By.ID, "playing").is_displayed())
    check("the code pairs the phone: now playing and cards show", driver.find_element(By.ID, "cards").is_displayed())
    small = driver.execute_script("""
        return [...document.querySelectorAll('button, select, input')].filter(e => e.offsetParent !== null)
          .filter(e => e.getBoundingClientRect().height < 44).map(e => e.id || e.textContent);""")
    check("every visible target is at least 44 px tall", small == [], small)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    wide = driver.execute_script("""
        return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 360)
          .map(e => e.tagName + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right));""")
    check("nothing is wider than the 360 px screen", width <= 360, (width, wide))

    # The card, shown on the box by its event script: the page shows it without a reload.
    seen_in_log = {}
    appeared_event = threading.Event()

    def watch_log():
        while not appeared_event.is_set() and "t" not in seen_in_log:
            if "card 04A2B3C4D5 shown" in box.log():
                seen_in_log["t"] = time.monotonic()
            time.sleep(0.02)

    watcher = threading.Thread(target=watch_log)
    watcher.start()
    WebDriverWait(driver, 60, poll_frequency=0.02).until(
        lambda d: "04A2B3C4D5" in d.find_element(By.ID, "last-card-text").text)
    appeared = time.monotonic()
    appeared_event.set()
    watcher.join()
    check("the card shown on the box appears in the page",
          text(driver, "last-card-text") == "Card 04A2B3C4D5 is not linked yet.", text(driver, "last-card-text"))
    if "t" in seen_in_log:
        print(f"figures: card in the player's log → in the page: {(appeared - seen_in_log['t']) * 1000:.0f} ms")

    # Link it to an album, one track per tap.
    wait.until(lambda d: len(Select(d.find_element(By.ID, "album")).options) > 0)
    album = Select(driver.find_element(By.ID, "album"))
    album.select_by_visible_text(next(o.text for o in album.options if o.text.startswith("Coastline")))
    Select(driver.find_element(By.ID, "mode")).select_by_value("track-per-tap")
    driver.save_screenshot(os.path.join(artefacts, "phone-360x740-card.png"))
    driver.find_element(By.CSS_SELECTOR, "#link-form button").click()
    wait.until(lambda d: "04A2B3C4D5" in d.find_element(By.ID, "card-list").text)
    links = box.mpd("kioskcards")
    check("the player linked the card to Coastline, one track per tap",
          links.get("card") == "04A2B3C4D5" and links.get("name") == "Coastline" and links.get("mode") == "track-per-tap",
          links)
    check("the link is logged with the page's session", re.search(
        r"card 04A2B3C4D5 linked to album \"Coastline\" \(track-per-tap\) by session [0-9a-f]{8}", box.log()) is not None)

    # The card again (the box's script): the player plays Coastline's first track alone.
    check("the card was linked before the box shows it again (else the machine was too slow for the script)",
          time.monotonic() - box.started < (AGAIN_AT_MS - 2000) / 1000)
    WebDriverWait(driver, 60, poll_frequency=0.1).until(lambda d: text(d, "title") not in ("", "–", "Nothing playing"))
    song = box.mpd("currentsong")
    status = box.mpd("status")
    check("the card now plays Coastline's first track, alone", song.get("Album") == "Coastline"
          and status.get("playlistlength") == "1" and text(driver, "title") == song.get("Title"),
          (song, status.get("playlistlength"), text(driver, "title")))

    # The card renamed on the page: the name the box shows, the album unchanged.
    driver.find_element(By.CSS_SELECTOR, "[aria-label='Rename card 04A2B3C4D5']").click()
    field = driver.find_element(By.CSS_SELECTOR, "[aria-label='New name for card 04A2B3C4D5']")
    field.clear()
    field.send_keys("Beach walk\n")
    wait.until(lambda d: "Beach walk" in text(d, "card-list"))
    links = box.mpd("kioskcards")
    check("the card renamed on the page keeps its album", links.get("name") == "Beach walk"
          and links.get("mode") == "track-per-tap" and "Coastline" not in text(driver, "card-list"), links)

    # The volume from the page.
    driver.execute_script("""
        const v = document.getElementById('volume'); v.value = 25; v.dispatchEvent(new Event('change'));""")
    Box.wait_for(lambda: box.mpd("status").get("volume") == "25", 10, "the player's volume at 25")
    check("the player obeys the page's volume", box.mpd("status").get("volume") == "25")
    wait.until(lambda d: text(d, "volume-value") == "25 %")
    driver.save_screenshot(os.path.join(artefacts, "phone-360x740.png"))
    size = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    check("the screenshot is 360×740", size == [360, 740], size)

    # The volume limit from the page: the box's volume comes down to it at once.
    wait.until(lambda d: d.find_element(By.ID, "settings").is_displayed())
    driver.execute_script("""
        const v = document.getElementById('volume-max'); v.value = 20; v.dispatchEvent(new Event('input'));""")
    driver.find_element(By.CSS_SELECTOR, "#settings-form button[type=submit]").click()
    wait.until(lambda d: text(d, "settings-note").startswith("Saved."))
    check("the box's check is shown (the demo runs none at start)",
          "has not finished yet" in text(driver, "problems"), text(driver, "problems"))
    Box.wait_for(lambda: box.mpd("status").get("volume") == "20", 10, "the player's volume at the new limit")
    check("a volume limit of 20 set on the page brings the box's volume down to 20",
          box.mpd("kioskstate").get("volumemax") == "20" and box.mpd("status").get("volume") == "20",
          (box.mpd("kioskstate"), box.mpd("status").get("volume")))
    wait.until(lambda d: d.find_element(By.ID, "volume").get_attribute("max") == "20")
    check("the page's volume slider stops at the new limit", True)

    # The box's check as a box that ran it answers (the demo runs none): the problems with their
    # fixes, then every line folded under them, drawn by the page's own script.
    shown = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const real = window.fetch;
        window.fetch = (path, options) => path !== "/api/problems" ? real(path, options)
          : Promise.resolve(new Response(JSON.stringify({ checked: true, powerWarning: null,
              problems: [{ text: "sound: no card named Headphones", fix: "dtparam=audio=on" }],
              lines: [{ status: "pass", group: "board", text: "Raspberry Pi 4", fix: null },
                      { status: "fail", group: "sound", text: "no card named Headphones", fix: "dtparam=audio=on" }] }),
              { status: 200, headers: { "Content-Type": "application/json" } }));
        window.showSettings().then(() => {
          window.fetch = real;
          const report = document.getElementById("check-report");
          done([document.querySelector("#problems > ul").innerText, report.querySelector("summary").innerText,
                [...report.querySelectorAll("li")].map((li) => li.textContent)]);
        });""")
    check("the page lists a problem with its fix, then the whole check folded",
          "no card named Headphones" in shown[0] and "Fix: dtparam=audio=on" in shown[0]
          and shown[1] == "The whole check (2 lines)" and shown[2][0] == "✓ board: Raspberry Pi 4"
          and shown[2][1] == "✗ sound: no card named HeadphonesFix: dtparam=audio=on",
          shown)
    driver.execute_async_script("window.showSettings().then(arguments[arguments.length - 1])")

    # Music from the phone: a FLAC chosen in the page's file picker arrives whole and plays.
    source, flac = box.demo_flac()
    picked = os.path.join(box.dir, "Lullaby.flac")
    with open(picked, "wb") as f:
        f.write(flac)
    wait.until(lambda d: d.find_element(By.ID, "music").is_displayed())
    driver.find_element(By.ID, "music-into").send_keys("Bedtime stories")
    driver.find_element(By.ID, "music-files").send_keys(picked)
    WebDriverWait(driver, 60, poll_frequency=0.1).until(
        lambda d: "Bedtime stories/Lullaby.flac: on the box." in text(d, "music-progress"))
    target = os.path.join(box.music, "Bedtime stories", "Lullaby.flac")
    check("the file chosen on the phone is on the box, byte for byte",
          os.path.exists(target) and open(target, "rb").read() == flac)
    wait.until(lambda d: "Bedtime stories" in text(d, "music-list"))
    uri = "music/Bedtime stories/Lullaby.flac"
    song = box.play_upload(uri)
    check("the player plays the uploaded file", song.get("file") == uri, song)
    driver.execute_script("document.getElementById('music').scrollIntoView()")
    driver.save_screenshot(os.path.join(artefacts, "phone-360x740-music.png"))

    # The box's set: a copy saved from the page holds the card linked above; a copy given back is
    # shown first, then replaces the box's cards when the parent says so.
    saved = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        fetch(document.getElementById('set-save').href, { credentials: 'same-origin' })
          .then(async (r) => done([r.headers.get('Content-Disposition'), await r.text()]));""")
    check("the saved copy is kiosk-set.json with the card linked on the page",
          'filename="kiosk-set.json"' in (saved[0] or "") and '"04A2B3C4D5"' in saved[1], saved)
    given = json.loads(saved[1])
    given["cards"] = {"0000000077": {"action": "stop"}}
    copy = os.path.join(box.dir, "kiosk-set.json")
    with open(copy, "w") as f:
        json.dump(given, f, indent=2)
    driver.find_element(By.ID, "set-file").send_keys(copy)
    wait.until(lambda d: d.find_element(By.ID, "set-offer").is_displayed())
    check("the page says what the copy holds before anything changes",
          text(driver, "set-summary").startswith("kiosk-set.json holds 1 card, ")
          and box.mpd("kioskcards").get("card") == "04A2B3C4D5", text(driver, "set-summary"))
    driver.find_element(By.ID, "set-import").click()
    wait.until(lambda d: text(d, "set-note").startswith("Imported: 1 card"))
    wait.until(lambda d: "0000000077" in text(d, "card-list") and "04A2B3C4D5" not in text(d, "card-list"))
    check("the copy given back replaced the box's cards", box.mpd("kioskcards").get("card") == "0000000077",
          box.mpd("kioskcards"))

    # Bedtime from the page: a window that does not hold the present stops what plays, at once.
    wait.until(lambda d: box.mpd("status").get("state") == "play")
    now = time.localtime()
    opens = f"{(now.tm_hour + 2) % 24:02d}:00"
    closes = f"{(now.tm_hour + 3) % 24:02d}:00"
    driver.find_element(By.ID, "bedtime-on").click()
    for field, value in (("bedtime-open", opens), ("bedtime-close", closes)):
        driver.execute_script("document.getElementById(arguments[0]).value = arguments[1]", field, value)
    driver.find_element(By.ID, "bedtime-minutes").send_keys("45")
    Select(driver.find_element(By.ID, "bedtime-one-more")).select_by_value("track")
    driver.execute_script("document.getElementById('bedtime').scrollIntoView()")
    driver.save_screenshot(os.path.join(artefacts, "phone-360x740-bedtime.png"))
    driver.find_element(By.CSS_SELECTOR, "#settings-form button[type=submit]").click()
    wait.until(lambda d: text(d, "settings-note").startswith("Saved.") and "bedtime" not in text(d, "settings-note"))
    rules = json.loads(box.mpd("kiosksettings").get("bedtime", "null") or "null")
    check("the box has the page's bedtime rules", rules is not None
          and rules.get("windows") == [{"days": "daily", "open": opens, "close": closes}]
          and rules.get("dailyMinutes") == 45 and rules.get("oneMore") == "track", rules)
    check("the player took the rules at once", "bedtime: new rules in force" in box.log())
    unsynchronized = box.mpd("kiosksettings").get("clockunsynchronized")
    if unsynchronized:
        # This machine's clock is not synchronised (adjtimex): the window waits, the page says so.
        check("the page says the times wait for the box's clock", "does not know the time yet" in text(driver, "bedtime-clock"),
              text(driver, "bedtime-clock"))
    else:
        Box.wait_for(lambda: box.mpd("status").get("state") == "stop", 10, "the box stopped at the new bedtime")
        check("outside the new window the box stops at once", box.mpd("status").get("state") == "stop")
    # The bedtime screenshot is kept, not compared: whether the box's clock is synchronised (which
    # adds a note above the fields) depends on the machine.
    for name in ("phone-360x740-pairing.png", "phone-360x740-card.png", "phone-360x740.png",
                 "phone-360x740-music.png"):
        ok, detail = screens.compare(os.path.join(artefacts, name), name)
        check(f"the screenshot {name} looks like the kept one ({detail})", ok, detail)
    print("artefacts:", os.path.join(artefacts, "phone-360x740.png"), os.path.join(artefacts, "phone-360x740-card.png"),
          os.path.join(artefacts, "phone-360x740-music.png"), os.path.join(artefacts, "phone-360x740-bedtime.png"))


if __name__ == "__main__":
    sys.exit(main())
