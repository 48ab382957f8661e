#!/usr/bin/env python3
"""Starts headless Chromium (Debian's chromium and chromium-driver, through Selenium) with a new
profile, opens chrome://policy and prints, as one JSON object, every policy that is set:
  {name: {"value": <the value, parsed as JSON when it is JSON>, "level": "Mandatory"|"Recommended",
          "scope": "Machine"|"User", "status": "OK"|…}}
Usage: chromium_policies.py WORK_FOLDER
Run it inside a mount namespace whose /etc holds the policies to check."""
import json, os, shutil, sys
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

work = sys.argv[1]
os.environ.update(HOME=work, TMPDIR=work, XDG_CONFIG_HOME=work + "/config", XDG_CACHE_HOME=work + "/cache")
options = webdriver.ChromeOptions()
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--user-data-dir=" + work + "/user-data"):
    options.add_argument(arg)
driver = webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"))
ROWS = r'''
function rows(node, out, depth) {
  if (depth > 40) return out;
  const kids = [];
  if (node.shadowRoot) kids.push(...node.shadowRoot.children);
  kids.push(...(node.children || []));
  for (const k of kids) {
    if (k.tagName && k.tagName.toLowerCase() === 'policy-row') out.push(k);
    rows(k, out, depth + 1);
  }
  return out;
}
const text = (root, sel) => { const e = root.querySelector(sel); return e ? e.textContent.trim() : null; };
return rows(document.body, [], 0).map(r => {
  const root = r.shadowRoot || r;
  return {name: text(root, '.policy.row .name'), value: text(root, '.value.row .value'),
          level: text(root, '.policy.row .level'), scope: text(root, '.policy.row .scope'),
          status: text(root, '.policy.row .messages')};
});'''
try:
    driver.set_page_load_timeout(60)
    driver.get("chrome://policy")
    # The table is filled asynchronously: wait until it lists policies at all (every known policy has a row).
    found = WebDriverWait(driver, 60).until(lambda d: d.execute_script(ROWS) or False)
    result = {}
    for row in found:
        if not row["name"] or not row["level"]:
            continue  # "Not set."
        try:
            value = json.loads(row["value"])
        except (TypeError, ValueError):
            value = row["value"]
        result[row["name"]] = {"value": value, "level": row["level"], "scope": row["scope"], "status": row["status"]}
    print(json.dumps(result))
finally:
    driver.quit()
