#!/usr/bin/env python3
"""The Settings app in a real browser: headless Chromium (Debian's) driven by Selenium.

Usage: settings_app_in_chromium.py BIN_DIR EXAMPLE_BUNDLE SCREENSHOT_DIR

BIN_DIR holds the built `settings` and `defaults` executables. Everything runs
in a throw-away HOME; the `defaults` tool checks what the browser wrote.
Exits non-zero with a message on the first failed check.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

BIN, BUNDLE, SHOTS = sys.argv[1], sys.argv[2], sys.argv[3]
DOMAIN = "com.example.AppSettings"
CHECKS = []


def check(condition, what):
    CHECKS.append(what)
    if not condition:
        raise AssertionError("FAILED: " + what)
    print("ok -", what, flush=True)


def main():
    os.makedirs(SHOTS, exist_ok=True)
    sandbox = tempfile.mkdtemp(prefix="settings-browser-")
    # The browser and its driver too (started with this process's environment) live in the
    # sandbox: nothing is written into the developer's HOME (~/.config/chromium, ~/.cache/dconf).
    os.environ.update(HOME=sandbox, XDG_CONFIG_HOME=sandbox + "/config", XDG_DATA_HOME=sandbox + "/data",
                      XDG_CACHE_HOME=sandbox + "/cache", TMPDIR=sandbox, SE_OFFLINE="true")
    env = dict(os.environ)
    env.update(OPENDEFAULTS_SYSTEM_ROOT=sandbox + "/system")
    os.makedirs(sandbox + "/system/etc", exist_ok=True)
    forced = os.geteuid() == 0  # managed files count only when owned by root
    if forced:
        managed = sandbox + "/system/etc/managed-preferences"
        os.makedirs(managed)
        with open(managed + "/" + DOMAIN + ".plist", "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
                    '<key>favoriteCandy</key><string>Licorice</string></dict></plist>\n')
        os.chmod(managed + "/" + DOMAIN + ".plist", 0o644)

    def tool(*args):
        return subprocess.run([BIN + "/defaults", *args], env=env, capture_output=True, text=True, timeout=30)

    def read(key):
        r = tool("read", DOMAIN, key)
        return r.stdout.strip() if r.returncode == 0 else None

    subprocess.run([BIN + "/settings", "install", BUNDLE, "--domain", DOMAIN], env=env, check=True, timeout=30)
    server = subprocess.Popen([BIN + "/settings", "serve", "--port", "0"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    drivers = []
    try:
        url = None
        deadline = time.time() + 30
        while time.time() < deadline and url is None:
            line = server.stdout.readline()
            m = re.search(r"(http://127\.0\.0\.1:\d+/)", line or "")
            if m:
                url = m.group(1)
        check(url is not None, "settings serve prints its address")

        def browser(languages="en-US,en"):
            options = webdriver.ChromeOptions()
            options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
            for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=420,1100"):
                options.add_argument(arg)
            options.add_experimental_option("prefs", {"intl.accept_languages": languages})
            driver = webdriver.Chrome(options=options,
                                      service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"))
            driver.set_page_load_timeout(30)
            drivers.append(driver)
            return driver

        def submit(driver, button, banner_text):
            """Clicks a form button and waits for the page it leads to."""
            driver.find_element(By.ID, button).click()
            WebDriverWait(driver, 20).until(
                lambda drv: banner_text in (drv.find_elements(By.ID, "banner") or [None])[0].text
                if drv.find_elements(By.ID, "banner") else False)
            return driver.find_element(By.ID, "banner").text

        d = browser()
        d.get(url)
        d.save_screenshot(SHOTS + "/01-applications.png")
        d.find_element(By.CSS_SELECTOR, 'a[href="/apps/%s"]' % DOMAIN).click()
        check(d.find_element(By.TAG_NAME, "h1").text == "AppSettings", "the AppSettings pane opens from the list")
        d.save_screenshot(SHOTS + "/02-appsettings-root.png")

        # The toggle: on by default (Engaged); switch it off.
        switch = d.find_element(By.NAME, "value:warp")
        check(switch.is_selected(), "the warp toggle starts on (DefaultValue Engaged)")
        d.execute_script("arguments[0].click()", switch)
        check(not switch.is_selected(), "the warp toggle is off after a click")
        # The slider: 5 by default; move it to 8 with the keyboard.
        slider = d.find_element(By.NAME, "value:warpfactor")
        check(slider.get_attribute("value") == "5", "the warpfactor slider starts at 5")
        d.execute_script("arguments[0].step = '1'", slider)
        slider.send_keys("\ue014\ue014\ue014")  # three right arrows
        check(slider.get_attribute("value") == "8", "the slider moves to 8")
        # The multi-value: open its list and choose IMAP.
        d.find_element(By.CSS_SELECTOR, 'li[data-key="protocol"] summary').click()
        d.find_element(By.XPATH, '//li[@data-key="protocol"]//label[.//span[text()="IMAP"]]').click()
        d.save_screenshot(SHOTS + "/03-edited-before-apply.png")
        check(read("warp") is None, "nothing is written before Apply")
        check("Your changes were applied." in submit(d, "apply", "applied"), "Apply confirms")
        d.save_screenshot(SHOTS + "/04-applied.png")
        check(read("warp") == "Disabled", "defaults read: warp = Disabled (FalseValue)")
        check(read("warpfactor") == "8", "defaults read: warpfactor = 8")
        check(read("protocol") == "IMAP", "defaults read: protocol = IMAP")
        check(tool("read-type", DOMAIN, "warpfactor").stdout.strip() == "Type is float", "the slider stores a real")

        # A child pane, and back.
        d.find_element(By.CSS_SELECTOR, 'a[href="/apps/%s?pane=More.plist"]' % DOMAIN).click()
        check(d.find_element(By.TAG_NAME, "h1").text == "More Settings", "the More child pane opens")
        d.save_screenshot(SHOTS + "/05-more-settings.png")
        if forced:
            candy = d.find_element(By.NAME, "value:favoriteCandy")
            check(not candy.is_enabled(), "a forced key is shown disabled")
            check(candy.get_attribute("value") == "Licorice", "a forced key shows the forced value")
            check("Managed by your administrator" in d.find_element(By.CSS_SELECTOR, 'li[data-key="favoriteCandy"]').text,
                  "a forced key carries a note")
        d.find_element(By.XPATH, '//li[@data-key="favoriteTeacher"]//label[.//span[text()="Mr. Greene"]]').click()
        submit(d, "apply", "applied")
        check(read("favoriteTeacher") == "Mr. Greene", "the radio group on the child pane is written")
        d.find_element(By.ID, "back").click()
        check(d.find_element(By.TAG_NAME, "h1").text == "AppSettings", "the back button returns to the root pane")

        # A value outside the slider's range, posted by a tampered form, is refused; nothing is written.
        slider = d.find_element(By.NAME, "value:warpfactor")
        d.execute_script("arguments[0].type = 'text'; arguments[0].value = '99'", slider)
        d.find_element(By.NAME, "value:username").send_keys("mallory")
        banner = submit(d, "apply", "Nothing was changed")
        check("Nothing was changed" in banner and "outside 1–10" in banner, "an out-of-range slider value is refused")
        d.save_screenshot(SHOTS + "/06-refused.png")
        check(read("warpfactor") == "8" and read("username") is None, "a refused form writes nothing")

        # A hostile value written by another process is shown escaped, never run.
        hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"
        check(tool("write", DOMAIN, "username", "-string", hostile).returncode == 0, "defaults write of a hostile value")
        d.get(url + "apps/" + DOMAIN)
        try:
            d.switch_to.alert
            check(False, "no script runs")
        except NoAlertPresentException:
            check(True, "no script from a value runs")
        check(d.find_element(By.NAME, "value:username").get_attribute("value") == hostile,
              "the hostile value is shown as text in its field")
        check("&lt;script&gt;" in d.page_source or hostile not in d.page_source.replace('value="', ""),
              "the hostile value is escaped in the page")
        d.save_screenshot(SHOTS + "/07-hostile-value-escaped.png")

        # Reset to Defaults: the bundle's DefaultValues come back.
        submit(d, "reset", "reset to its default values")
        check(read("warp") == "Engaged" and read("warpfactor") == "5" and read("protocol") == "SMTP",
              "Reset to Defaults writes the bundle's defaults")
        d.save_screenshot(SHOTS + "/08-reset.png")

        # Localized by the browser's preferred languages.
        g = browser("de-DE,de")
        g.get(url + "apps/" + DOMAIN)
        check("Allgemeines" in g.page_source and "Warpantrieb" in g.page_source, "German browsers get the de.lproj strings")
        g.save_screenshot(SHOTS + "/09-appsettings-german.png")
        print("%d checks passed" % len(CHECKS))
    finally:
        for driver in drivers:
            try:
                driver.quit()
            except Exception:
                pass
        server.kill()
        server.wait()
        shutil.rmtree(sandbox, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
