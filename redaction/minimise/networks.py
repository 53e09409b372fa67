"""IP addresses that identify no one: local addresses and networks.

An address of a private network (RFC 1918: ``10.0.0.0/8``, ``172.16.0.0/12``,
``192.168.0.0/16``), a loopback, link-local or unique-local address, or the unspecified
address (``0.0.0.0``, ``::``) is the same on millions of networks and cannot be traced to
a person; neither can a network written with its prefix length ("198.51.100.0/24"). A
search may need them ("--bind 0.0.0.0", "REDIS_URL=redis://10.0.4.12:6379"), so they
are kept. Every other address, documentation ranges included (they stand in for public
addresses in examples), is personal and dropped.
"""

from __future__ import annotations

import ipaddress
import re

_LOCAL_NETWORKS = tuple(
    ipaddress.ip_network(net)
    for net in (
        "10.0.0.0/8",
        "172.16.0.0/12",
        "192.168.0.0/16",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "0.0.0.0/32",
        "::1/128",
        "::/128",
        "fe80::/10",
        "fc00::/7",
    )
)

_NETWORK = re.compile(r"(?P<address>[0-9a-fA-F:.]+)/(?P<prefix>\d{1,3})")


def is_local_address(text: str) -> bool:
    """True when ``text`` is an IPv4 or IPv6 address of a local range (see the module)."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return False
    return any(address in net for net in _LOCAL_NETWORKS if net.version == address.version)


def is_network(text: str) -> bool:
    """True for an address with a prefix length shorter than one host ("10.1.0.0/16").

    A ``/32`` (or ``/128``) names one host and is not a network.
    """
    m = _NETWORK.fullmatch(text.strip())
    if m is None:
        return False
    try:
        network = ipaddress.ip_network(f"{m['address']}/{m['prefix']}", strict=False)
    except ValueError:
        return False
    return network.prefixlen < network.max_prefixlen
