"""The app installs on a phone's home screen: every page names its web manifest, which gives the app's
short name, where it opens and its icons (192 and 512 px), each served."""

import json
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db
STATIC = Path(__file__).resolve().parents[2] / "static"


def test_the_app_is_installable(client):
    source = json.loads((STATIC / "manifest.webmanifest").read_text())
    assert source["short_name"] == "Last Trick" and source["start_url"] == "/"
    assert {icon["sizes"] for icon in source["icons"]} >= {"192x192", "512x512"}
    for icon in source["icons"]:
        assert (STATIC / icon["src"]).exists(), icon

    page = client.get("/").content.decode()
    manifest = client.get(re.search(r'<link rel="manifest" href="([^"]+)"', page)[1])
    assert manifest.status_code == 200 and manifest["Content-Type"].startswith("application/manifest+json")
    served = json.loads(manifest.content)
    assert served["short_name"] == "Last Trick" and served["start_url"] == "/"
    assert {icon["sizes"] for icon in served["icons"]} >= {"192x192", "512x512"}
    for icon in served["icons"]:
        assert client.get(icon["src"]).status_code == 200, icon
