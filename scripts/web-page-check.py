#!/usr/bin/python3
"""Drives yt-gst's control page in headless Chromium (Debian's chromium, chromium-driver, python3-selenium).

Usage: web-page-check.py URL ARTEFACTS_DIR ROOM_NAME [--live]
  URL: the page with its token (http://127.0.0.1:PORT/?token=T); ARTEFACTS_DIR: where the screenshots go;
  ROOM_NAME: the name of a room the page must show; --live: the page is a real sender's with a real receiver, so the
  room's badge must show a measured offset (pushed by its reports) and "next" must change the title (pushed by the
  sender's now playing).

Checks, at phone size (390x844) then at desktop size (1280x800): the page connects over its WebSocket, takes the
token out of the address bar, shows the room (name, volume, online, sync badge) and the now playing; every control
has an accessible name and a big touch target; nothing is fetched from another origin; no script error. Then it
steers like a user: next (--live), pause, a volume change with the keyboard on the slider, a rename, a mute, a
delay of 35 ms, the group's mute, and checks that a
change made by another client (an HTTP POST) is pushed into the page, and that the page reconnects when its
WebSocket drops. Prints one JSON object of what it saw on stdout; a failed check is one line on stderr, exit 1.
"""
import json
import signal
import sys
import time
import urllib.request
from urllib.parse import parse_qs, urlparse

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

SIZES = {"phone": (390, 844, True), "desktop": (1280, 800, False)}


def fail(message):
    print("web-page-check: " + message, file=sys.stderr)
    sys.exit(1)


def wait(driver, what, condition, seconds=15, detail=None):
    """Polls the page's `condition` until it is truthy; fails after `seconds`, saying what the page's `detail`
    script returned then."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = driver.execute_script(condition)
        if value:
            return value
        time.sleep(0.05)
    shown = f" (the page had {json.dumps(driver.execute_script(detail))})" if detail else ""
    fail("timed out waiting for " + what + shown)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def resize(driver, name):
    width, height, mobile = SIZES[name]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": mobile})


def post(url, token, method, params):
    """A JSON-RPC call from another client (not the page), as Home Assistant would make it."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    parts = urlparse(url)
    request = urllib.request.Request(f"{parts.scheme}://{parts.netloc}/jsonrpc", data=body,
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


ROOM = """
const rooms = [...document.querySelectorAll('.room')];
return rooms.map((r) => ({
  name: r.querySelector('input.name').value, volume: Number(r.querySelector('input[type=range]').value),
  online: r.querySelector('.online').textContent, badge: r.querySelector('.badge').textContent,
  muted: r.querySelector('.vol button').getAttribute('aria-pressed')}));
"""

# Every button and input: an accessible name, and at least 44 CSS pixels tall (a finger's target).
ACCESSIBLE = """
const bad = [];
for (const e of document.querySelectorAll('button, input')) {
  const name = e.getAttribute('aria-label') || (e.closest('label') && e.closest('label').textContent.trim());
  const box = e.getBoundingClientRect();
  if (!name) bad.push(e.outerHTML.slice(0, 80) + ' has no accessible name');
  if (box.height < 44 || box.width < 44) bad.push((name || e.tagName) + ' is ' + box.width + 'x' + box.height);
}
return bad;
"""


def check_page(driver, room, live):
    """The first load: connected, token out of the address, the room and the now playing shown."""
    wait(driver, "the WebSocket", "return document.getElementById('conn').textContent === 'connected'")
    if "token" in parse_qs(urlparse(driver.current_url).query):
        fail("the token is still in the address: " + driver.current_url)
    if not driver.execute_script("return sessionStorage.getItem('yt-gst-token')"):
        fail("the token was not kept in sessionStorage")
    rooms = wait(driver, "room " + room, f"const r = (function(){{{ROOM}}})(); "
                 f"return r.some((x) => x.name === {json.dumps(room)}) && r;")
    title = wait(driver, "now playing", "const t = document.getElementById('title').textContent; "
                 "return t !== '—' && t;")
    if live:
        rooms = wait(driver, "a measured offset on the badge", f"const r = (function(){{{ROOM}}})(); "
                     "return r.every((x) => /[0-9] µs$/.test(x.badge)) && r;", 30)
        wait(driver, "the offset plotted", "return [...offsets.values()].some((points) => points.length > 0)")
    return rooms, title


def check_structure(driver):
    bad = driver.execute_script(ACCESSIBLE)
    if bad:
        fail("controls: " + "; ".join(bad))
    origin = driver.execute_script("return location.origin")
    foreign = driver.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name)"
        ".filter((n) => !n.startsWith(location.origin) && !n.startsWith('ws'))")
    if foreign:
        fail(f"fetched from outside {origin}: {foreign}")


def steer(driver, url, token, live):
    """What a user does, and what another client's change does to the page."""
    seen = {}
    if live:
        before = driver.find_element(By.ID, "title").text
        driver.find_element(By.ID, "next").click()
        seen["next"] = (before, wait(driver, "the next title pushed", "const t = document.getElementById('title')"
                                     f".textContent; return t !== {json.dumps(before)} && t;"))
    driver.find_element(By.ID, "play").click()
    wait(driver, "the play button to show paused", "return document.getElementById('play').getAttribute("
         "'aria-label') === 'Play'")
    slider = driver.find_element(By.CSS_SELECTOR, ".room input[type=range]")
    before = int(slider.get_attribute("value"))
    slider.send_keys(*([Keys.ARROW_LEFT] * 10))
    seen["volume_by_keys"] = (before, int(slider.get_attribute("value")))
    name = driver.find_element(By.CSS_SELECTOR, ".room input.name")
    name.clear()
    name.send_keys("Living room", Keys.ENTER)
    driver.find_element(By.CSS_SELECTOR, ".room .vol button").click()
    delay = driver.find_element(By.CSS_SELECTOR, ".room label.delay input")
    delay.clear()
    delay.send_keys("35", Keys.TAB)
    driver.find_element(By.CSS_SELECTOR, ".group .ghead button").click()
    wait(driver, "the group shown muted", "return document.querySelector('.group .ghead button')"
         ".getAttribute('aria-pressed') === 'true'")
    time.sleep(0.5)  # the debounced volume and the calls reach the service
    client_id = driver.execute_script("return [...cards.keys()][0]")
    post(url, token, "Client.SetVolume", {"id": client_id, "volume": {"percent": 33}})
    wait(driver, "a pushed volume change", "return document.querySelector('.room input[type=range]').value === '33'")
    seen["pushed_volume"] = 33
    driver.execute_script("ws.close()")
    wait(driver, "the page to notice the drop", "return document.getElementById('conn').textContent"
         ".startsWith('offline')", 5)
    wait(driver, "the page to reconnect", "return document.getElementById('conn').textContent === 'connected'", 15)
    post(url, token, "Client.SetName", {"id": client_id, "name": "Den"})
    wait(driver, "a pushed rename after the reconnect", "return document.querySelector('.room input.name').value"
         " === 'Den'")
    seen["client_id"] = client_id
    return seen


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["--live"]):
        fail("usage: web-page-check.py URL ARTEFACTS_DIR ROOM_NAME [--live]")
    # Bounded in time whatever hangs: the browser is still quit (finally below), so nothing is left running.
    signal.signal(signal.SIGALRM, lambda *_: fail("gave up after 120 s"))
    signal.alarm(120)
    url, artefacts, room = sys.argv[1:4]
    live = sys.argv[4:] == ["--live"]
    token = parse_qs(urlparse(url).query).get("token", [""])[0]
    driver = browser()
    try:
        report = {}
        for size in ["phone", "desktop"]:
            resize(driver, size)
            driver.get(url)
            rooms, title = check_page(driver, room, live)
            check_structure(driver)
            shot = f"{artefacts}/page-{size}-{SIZES[size][0]}x{SIZES[size][1]}.png"
            driver.save_screenshot(shot)
            report[size] = {"rooms": rooms, "title": title, "screenshot": shot,
                            "viewport": driver.execute_script("return [innerWidth, innerHeight]")}
        report["steered"] = steer(driver, url, token, live)
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        if errors:
            fail("script errors: " + " | ".join(errors))
        print(json.dumps(report))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
