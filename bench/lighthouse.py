"""Figure 5: Lighthouse's mobile scores of three pages, and whether Back can show a table from the browser's
back/forward cache. Lighthouse 12.2.3 (the npm package, installed by this figure once per machine into
~/.cache/lasttrick/, so that every clone's run shares it) in Debian's chromium, headless, its default mobile run (a mid-range phone on a slow 4G line,
simulated) against the app as production serves it: the home page, a group's table (`/s/<token>/`) and its
group's page (`/g/<token>/`). Each page's performance, accessibility and best-practices scores (0-100), the
median over its rounds; on the table page its `bf-cache` audit too (1: Back restored it from the cache).
Quick: the table page alone, one round."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from common import ROOT, Bench, BenchError, note, spread

VERSION = "12.2.3"
TOOL = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lasttrick" / f"lighthouse-{VERSION}"
CHROMIUM = "/usr/bin/chromium"
CATEGORIES = ("performance", "accessibility", "best-practices")
LOAD = ("first-contentful-paint", "largest-contentful-paint", "total-blocking-time", "cumulative-layout-shift")
BUDGET = 100  # every category, every page: at least
FULL = {"rounds": 3, "pages": ("home", "table", "group")}
QUICK = {"rounds": 1, "pages": ("table",)}
DATABASES = ("sqlite",)  # the pages do not depend on the engine
# A group of four with a match of five hands, made by the app's own verbs (run under the app's settings).
SEED = """
import json, django
django.setup()
from matches.models import Group
group = Group.create("Vendredi", ["Aïcha", "Boubacar", "Chaibou", "Djibo"])
sitting = group.start_match("agram", [player.pk for player in group.members()])
for number in range(1, 6):
    sitting.record_hand(number, number % 4)
print(json.dumps({"group": group.token, "table": sitting.token}))
"""


def needs(quick: bool) -> dict:
    return {"app": {}}  # migrated and its static files collected: the group is made here (SEED)


def lighthouse() -> Path:
    """The CLI of Lighthouse VERSION, installed into TOOL by npm when it is not there yet; chromium too."""
    subprocess.run([str(ROOT / "bin" / "ensure-debian-packages"), "chromium", "npm"], check=True)
    cli = TOOL / "node_modules" / "lighthouse" / "cli" / "index.js"
    installed = TOOL / "node_modules" / "lighthouse" / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != VERSION:
        TOOL.mkdir(parents=True, exist_ok=True)
        manifest = TOOL / "package.json"  # npm installs here, not into a package.json it finds further up
        if not manifest.exists():
            manifest.write_text('{"private": true}\n')
        note(f"installing lighthouse@{VERSION} into {TOOL}")
        done = subprocess.run(["npm", "i", "-E", f"lighthouse@{VERSION}", "--no-audit", "--no-fund"], cwd=TOOL,
                              capture_output=True, text=True)
        if done.returncode:
            raise BenchError(f"npm could not install lighthouse@{VERSION}: {done.stderr[-2000:]}")
    return cli


def run_once(cli: Path, url: str, out: Path) -> dict:
    """One Lighthouse run of `url`: its report (JSON)."""
    # Every core, not the load generator's alone: chromium's processes on one core, with this shared
    # machine's other work, would make its page's main thread wait, and Lighthouse counts that as the
    # page's blocking time (its slowdown for a mid-range phone multiplies what it sees).
    command = ["taskset", "-c", f"0-{os.cpu_count() - 1}", "node", str(cli), url,
               f"--only-categories={','.join(CATEGORIES)}", "--output=json", f"--output-path={out}",
               "--chrome-flags=--headless=new --no-sandbox --disable-gpu", "--quiet"]
    done = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True,
                          timeout=300)
    if done.returncode or not out.exists():
        raise BenchError(f"lighthouse failed on {url}: {done.stderr[-2000:]}")
    report = json.loads(out.read_text())
    if report.get("runtimeError"):
        raise BenchError(f"lighthouse on {url}: {report['runtimeError']}")
    return report


def scores(report: dict) -> dict:
    """Each category's score as Lighthouse shows it (0-100, rounded as it rounds), the bf-cache audit's (1 or
    0) with its reasons, and the load's figures beside the performance score."""
    got = {name: int(report["categories"][name]["score"] * 100 + 0.5) for name in CATEGORIES}
    audits = report["audits"]
    bf = audits["bf-cache"]
    got["bf-cache"] = int(bf["score"] or 0)
    got["bf-cache reasons"] = [item["reason"] for item in (bf.get("details") or {}).get("items", [])]
    for audit in LOAD:
        got[audit] = audits[audit]["numericValue"]
    scored = {name: audit["score"] for name, audit in audits.items()
              if audit["scoreDisplayMode"] in ("binary", "numeric")}
    got["below 1"] = sorted(name for name, score in scored.items() if score is not None and score < 1)
    return got


def row(page: str, name: str, rounds: list[dict], shown: str = "") -> dict:
    return {"figure": f"Lighthouse {name}, {page} page (mobile)", "value": spread([r[name] for r in rounds], 0),
            "budget": 1 if name == "bf-cache" else BUDGET, "at_least": True, "gated": True, "shown": shown}


async def measure(bench: Bench, quick: bool) -> tuple[list[dict], dict]:
    plan = QUICK if quick else FULL
    cli = lighthouse()
    made = subprocess.run([sys.executable, "-c", SEED], cwd=bench.app_dir, env=bench.app_env, capture_output=True,
                          text=True)
    if made.returncode:
        raise BenchError(f"the group for Lighthouse was not made: {made.stderr[-2000:]}")
    tokens = json.loads(made.stdout.splitlines()[-1])
    server = bench.app("lighthouse").start()
    base = f"http://127.0.0.1:{server.port}"
    addresses = {"home": "/", "table": f"/s/{tokens['table']}/", "group": f"/g/{tokens['group']}/"}
    reports = bench.scratch / "lighthouse"
    reports.mkdir(exist_ok=True)
    raw: dict = {}
    try:
        for page in plan["pages"]:
            for number in range(plan["rounds"]):
                out = reports / f"{page}-{number + 1}.json"
                got = await asyncio.to_thread(run_once, cli, base + addresses[page], out)
                raw.setdefault(page, []).append(scores(got))
                note(f"lighthouse {page} round {number + 1}: "
                     + ", ".join(f"{name} {raw[page][-1][name]}" for name in (*CATEGORIES, "bf-cache")))
    finally:
        server.stop()
    rows = []
    for page, rounds in raw.items():
        load = {name: spread([r[name] for r in rounds])["median"] for name in LOAD}
        below = sorted({name for r in rounds for name in r["below 1"]} - {"bf-cache"})
        rows.append(row(page, "performance", rounds,
                        f"FCP {load['first-contentful-paint'] / 1000:.1f} s, "
                        f"LCP {load['largest-contentful-paint'] / 1000:.1f} s, "
                        f"TBT {load['total-blocking-time']:.0f} ms, CLS {load['cumulative-layout-shift']:.3f}"
                        + (f"; audits below full marks: {', '.join(below)}" if below else "")))
        rows.append(row(page, "accessibility", rounds))
        rows.append(row(page, "best-practices", rounds))
        if page == "table":
            reasons = sorted({reason for r in rounds for reason in r["bf-cache reasons"]})
            rows.append(row(page, "bf-cache", rounds, "1: Back restores it from the cache"
                            + (f"; kept out by: {'; '.join(reasons)}" if reasons else "")))
    shutil.rmtree(reports)
    return rows, raw
