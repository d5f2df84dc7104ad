"""Where a phone at the table can open the page: this machine's addresses on the local network, and a QR
code of one of them for the terminal (a phone's camera opens it; nobody types an address at the table)."""

from __future__ import annotations

import contextlib
import io
import ipaddress
import socket

ALL_INTERFACES = ("0.0.0.0", "::", "")


def lan_addresses(version: int = 4) -> list[str]:
    """This machine's IPv4 (or IPv6) addresses other than loopback, the one its traffic leaves by first. Nothing
    is sent: connecting a UDP socket only picks the outgoing interface (and fails quietly with no network)."""
    family, probe = (socket.AF_INET, "10.255.255.255") if version == 4 else (socket.AF_INET6, "2001:db8::1")
    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
        s.connect((probe, 1))  # any address off this machine; no packet goes out
        found.append(s.getsockname()[0])
    with contextlib.suppress(OSError):  # a host name this machine cannot resolve: the first answer stands
        found += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, family)]
    out: list[str] = []
    for address in found:
        ip = ipaddress.ip_address(address)
        if not (ip.is_loopback or ip.is_unspecified or ip.is_link_local) and address not in out:
            out.append(address)
    return out


def serve_urls(host: str, port: int, lan: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(URLs on this machine, URLs from other devices) of a server bound to ``host``:``port``."""
    if host == "::":  # every IPv6 address (asyncio's server takes no IPv4 on it)
        found = lan_addresses(6) if lan is None else lan
        return [f"http://[::1]:{port}/"], [f"http://[{a}]:{port}/" for a in found]
    if host in ALL_INTERFACES:
        return [f"http://127.0.0.1:{port}/"], [f"http://{a}:{port}/" for a in (lan_addresses() if lan is None else lan)]
    shown = f"[{host}]" if ":" in host else host
    if _loopback_only(host):
        return [f"http://{shown}:{port}/"], []
    return [], [f"http://{shown}:{port}/"]


def _loopback_only(host: str) -> bool:
    """Whether ``host`` is this machine alone: a loopback address, or a name resolving to nothing else."""
    if _is_ip(host):
        return ipaddress.ip_address(host).is_loopback
    if host == "localhost":
        return True
    try:
        found = {str(info[4][0]).split("%")[0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return False
    return bool(found) and all(ipaddress.ip_address(a).is_loopback for a in found)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def qr_lines(url: str) -> str:
    """``url`` as a QR code drawn with block characters (two rows of modules per line), quiet zone included."""
    import segno

    buf = io.StringIO()
    segno.make(url, error="m").terminal(out=buf, compact=True, border=2)
    return buf.getvalue()

