"""Behind the README's nginx block, the per-address ceilings count the real client: Debian's nginx on a
free port in front of `make run`'s server, which trusts X-Forwarded-For from nginx alone
(TRUSTED_PROXIES). Clients are told apart by the loopback address they connect from (127.0.0.2,
127.0.0.3...); nginx connects to the app from 127.0.0.9. Seen through the ceiling on new matches."""

import re
import subprocess
from pathlib import Path

import pytest

from tests.servers import ROOT, Phone, free_port, make_run, serving

NGINX = Path("/usr/sbin/nginx")
PROXY = "127.0.0.9"
CEILING = 3  # new matches an hour per client address


@pytest.fixture(scope="module")
def nginx_installed() -> None:
    """Debian's nginx, installed by the tests' set-up (`make test` runs it first)."""
    if not NGINX.exists():
        subprocess.run([ROOT / "bin" / "ensure-debian-packages", "nginx"], check=True)


def readme_block() -> str:
    """The README's nginx block, as an operator copies it."""
    blocks = re.findall(r"```nginx\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1, "the README shows one nginx block"
    return blocks[0]


def nginx_config(folder: Path, port: int, app_port: int) -> Path:
    """A whole nginx configuration around the README's block: its own files, `port`, the app on `app_port`."""
    block = readme_block()
    assert "http://127.0.0.1:8000" in block
    block = block.replace("http://127.0.0.1:8000", f"http://127.0.0.1:{app_port}")
    block = block.replace("/var/log/nginx", str(folder))  # the block's own log, beside the others
    temp = " ".join(f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    config = folder / "nginx.conf"
    config.write_text(
        f"daemon off; master_process off; pid {folder / 'nginx.pid'}; error_log {folder / 'error.log'};\n"
        f"events {{}}\nhttp {{\n access_log {folder / 'access.log'}; {temp}\n server {{\n  listen 127.0.0.1:{port};\n"
        f"  proxy_bind {PROXY};\n{block}\n }}\n}}\n"
    )
    return config


def start(base: str, source: str, forwarded: str | None = None) -> int:
    """A new client at `source` (no cookies) starts a demo match, sending `forwarded` as X-Forwarded-For."""
    phone = Phone(source)
    assert phone.get(f"{base}/").status == 200 and phone.csrf
    headers = {} if forwarded is None else {"X-Forwarded-For": forwarded}
    return phone.request(f"{base}/demo/", {}, htmx=False, headers=headers).status


def test_behind_the_readme_nginx_the_ceilings_follow_the_real_client_whatever_it_forwards(tmp_path, nginx_installed):
    rates = {"START_RATE_LIMIT": "1000/h", "START_ADDRESS_RATE_LIMIT": f"{CEILING}/h"}
    with make_run(tmp_path, TRUSTED_PROXIES=PROXY, **rates) as app:
        port = free_port()
        config = nginx_config(tmp_path, port, int(app.rsplit(":", 1)[1]))
        command = [str(NGINX), "-p", str(tmp_path), "-c", str(config), "-e", str(tmp_path / "error.log")]
        with serving(command, {}, port, tmp_path / "nginx.log") as proxy:
            # One client, three forged addresses and none: one count, refused once over the ceiling.
            sent = ["198.51.100.1", "198.51.100.2, 203.0.113.5", None, "198.51.100.3"]
            assert [start(proxy, "127.0.0.2", forwarded) for forwarded in sent] == [302] * CEILING + [429]
            # Another client sending nothing, or the first one's address, still has its own count.
            assert [start(proxy, "127.0.0.3", forwarded) for forwarded in (None, "127.0.0.2")] == [302, 302]
        # Straight to the app, from an address that is no trusted proxy: the header is never read.
        direct = [start(app, "127.0.0.1", forged) for forged in ("198.51.100.7", "198.51.100.8", None, "198.51.100.9")]
        assert direct == [302] * CEILING + [429]


def test_behind_the_readme_nginx_links_keep_the_port_archives_pass_and_no_log_holds_a_link(tmp_path, nginx_installed):
    """As an operator copies the block into a server whose access and error logs are on (Debian's default)."""
    with make_run(tmp_path, TRUSTED_PROXIES=PROXY, START_ADDRESS_RATE_LIMIT="100/h") as app:
        port = free_port()
        config = nginx_config(tmp_path, port, int(app.rsplit(":", 1)[1]))
        command = [str(NGINX), "-p", str(tmp_path), "-c", str(config), "-e", str(tmp_path / "error.log")]
        with serving(command, {}, port, tmp_path / "nginx.log") as proxy:
            phone = Phone("127.0.0.2")
            assert phone.get(f"{proxy}/").status == 200
            started = phone.request(f"{proxy}/demo/", {}, htmx=False)
            assert started.status == 302, (started.status, started.body[:300])
            table = {name.lower(): value for name, value in started.headers.items()}["location"]
            token = table.strip("/").split("/")[-1]
            share = phone.get(f"{proxy}{table}share/").body
            assert f":{port}{table}" in share  # the link to share works on this port
            phone.get(f"{proxy}/groups/import/")
            big = phone.request(f"{proxy}/groups/import/", {"archive": "x" * 1_100_000}, htmx=False)
            assert big.status != 413 and "Last Trick" in big.body  # the app's answer, not nginx's refusal
            assert phone.get(f"{proxy}/s/{token}/nothing/").status == 404
        logs = {path.name: path.read_text(errors="replace") for path in tmp_path.glob("*.log")}
        assert logs and {name: token in text for name, text in logs.items()} == dict.fromkeys(logs, False)
