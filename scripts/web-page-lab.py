#!/usr/bin/python3
"""A phone in the lab: headless Chromium steers two rooms on a real sender's control page, as a user would.

Usage: web-page-lab.py URL ARTEFACTS_DIR ROOM OTHER_ROOM NEW_NAME PERCENT
  URL: the sender's page with its token (http://SENDER:PORT/?token=T); ROOM: the room it steers; OTHER_ROOM: a room
  that must be shown and left alone; NEW_NAME: ROOM's new name; PERCENT: where ROOM's volume slider goes.

Run by Tests/NetworkTests/ControlPageLabTests.swift, which measures what the slider did in the recording and
restarts ROOM's receiver once it has the new name. At phone size (390x844, touch): the page connects and shows both
rooms online; ROOM's slider goes to PERCENT with the arrow keys (one step a key, as a keyboard user moves it); ROOM
is renamed in its name field; then, while the test restarts ROOM's receiver, the page must show ROOM go offline and
come back online under NEW_NAME, pushed over the same page load (no reload). Screenshots then at phone size and at
desktop size (1280x800). Prints one JSON object of what it saw; a failed check is one line on stderr, exit 1.
"""
import importlib
import json
import os
import signal
import struct
import sys

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
page = importlib.import_module("web-page-check")  # the browser, sizes and waits the page's own check uses

ROOMS = f"(function(){{{page.ROOM}}})()"  # the rooms the page shows: name, volume, online, ...

# Every text ROOM's online mark shows from now on, in order (its card is made once per client id: a receiver back
# under another id would leave this one offline), and a mark on the window that a reload would lose.
WATCH = """
const card = [...cards.values()].find((c) => c.name.value === arguments[0]);
window.labOnline = [card.online.textContent];
new MutationObserver(() => {
  const text = card.online.textContent;
  if (labOnline[labOnline.length - 1] !== text) labOnline.push(text);
}).observe(card.online, {childList: true, characterData: true, subtree: true});
window.labLoad = Math.random();
return window.labLoad;
"""


def room_card(driver, name):
    for card in driver.find_elements(By.CSS_SELECTOR, ".room"):
        if card.find_element(By.CSS_SELECTOR, "input.name").get_attribute("value") == name:
            return card
    page.fail(f"no room named {name} on the page")


def move_slider(driver, name, percent):
    """Arrow keys on the room's slider until it reads `percent`; (before, after)."""
    slider = room_card(driver, name).find_element(By.CSS_SELECTOR, "input[type=range]")
    before = int(slider.get_attribute("value"))
    key = Keys.ARROW_LEFT if before > percent else Keys.ARROW_RIGHT
    slider.send_keys(*([key] * abs(before - percent)))
    after = int(slider.get_attribute("value"))
    if after != percent:
        page.fail(f"the slider of {name} went from {before} to {after}, not {percent}")
    return before, after


def rename(driver, name, new_name):
    field = room_card(driver, name).find_element(By.CSS_SELECTOR, "input.name")
    # Selected and typed over in one focus, as a user does: WebDriver's clear() blurs the field, and the room's next
    # report then put the old name back before the typing ("KitchenDen").
    field.send_keys(Keys.CONTROL, "a", Keys.NULL, new_name, Keys.ENTER)


def screenshot(driver, artefacts, size):
    """The page at `size` ("phone" or "desktop"), checked to be that many pixels; its path."""
    page.resize(driver, size)
    width, height, _ = page.SIZES[size]
    page.wait(driver, f"the {size} viewport", f"return innerWidth === {width} && innerHeight === {height}")
    shot = f"{artefacts}/lab-{size}-{width}x{height}.png"
    driver.save_screenshot(shot)
    with open(shot, "rb") as f:
        got = struct.unpack(">II", f.read(24)[16:24])
    if got != (width, height):
        page.fail(f"the {size} screenshot is {got[0]}x{got[1]}")
    return shot


def main():
    if len(sys.argv) != 7:
        page.fail("usage: web-page-lab.py URL ARTEFACTS_DIR ROOM OTHER_ROOM NEW_NAME PERCENT")
    url, artefacts, room, other, new_name, percent = sys.argv[1:6] + [int(sys.argv[6])]
    signal.signal(signal.SIGALRM, lambda *_: page.fail("gave up after 150 s"))
    signal.alarm(150)
    driver = page.browser()
    try:
        page.resize(driver, "phone")
        driver.set_page_load_timeout(20)
        try:
            driver.get(url)
        except TimeoutException:
            page.fail(f"the page did not load in 20 s: {url}")
        page.wait(driver, "the WebSocket", "return document.getElementById('conn').textContent === 'connected'",
                  detail="return document.getElementById('conn').textContent")
        names = json.dumps([room, other])
        page.wait(driver, "both rooms online", f"const r = {ROOMS}; return {names}"
                  ".every((n) => r.some((x) => x.name === n && x.online === 'online'));", 30,
                  detail=f"return [document.getElementById('conn').textContent, {ROOMS}]")
        load = driver.execute_script(WATCH, room)
        report = {"slider": move_slider(driver, room, percent)}
        rename(driver, room, new_name)
        # The test restarts the receiver once the hub and the room have the new name (a busy machine: the receiver
        # registers again once it is in sync, up to ~45 s).
        report["online"] = page.wait(
            driver, f"{new_name} to go offline and come back online",
            "const seen = window.labOnline, n = seen.length; return n >= 3 && seen[n - 2] === 'offline' && "
            "seen[n - 1] === 'online' && seen;", 100)
        report["rooms"] = page.wait(driver, f"{new_name} shown after the restart", f"const r = {ROOMS}; return "
                                    f"r.some((x) => x.name === {json.dumps(new_name)}) && r;", 10)
        if driver.execute_script("return window.labLoad") != load:
            page.fail("the page was reloaded: the restart must be pushed into the loaded page")
        report["screenshots"] = [screenshot(driver, artefacts, size) for size in ("phone", "desktop")]
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            page.fail("script errors: " + " | ".join(errors))
        print(json.dumps(report))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
