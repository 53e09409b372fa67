"""IP addresses that identify no one: loopback, unspecified, and networks.

A loopback address (``127.0.0.1``, ``::1``) or the unspecified address (``0.0.0.0``,
``::``) names no machine, and a network written with its prefix length and its host bits
zero ("10.1.0.0/16", "198.51.100.0/24") names no host; a search may need them ("--bind
0.0.0.0", "overlapping CIDR 10.0.0.0/16"), so they are kept. Every other address is
dropped: a public one may be a person's, and a private, link-local or unique-local host
address ("192.168.1.42", "fe80::1ff:fe23:4567:890a") is an *internal identifier* of the
tenant's network, which the egress rule keeps in (issue 11: "removes or masks PII and
internal identifiers"); the PII corpus labels them personal too.
"""

from __future__ import annotations

import ipaddress
import re

_NETWORK = re.compile(r"(?P<address>[0-9a-fA-F:.]+)/(?P<prefix>\d{1,3})")


def is_nobodys_address(text: str) -> bool:
    """True when ``text`` is a loopback or the unspecified address (IPv4 or IPv6)."""
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def is_network(text: str) -> bool:
    """True for a network: a prefix shorter than one host, host bits zero ("10.1.0.0/16").

    A ``/32`` (or ``/128``) names one host, and "10.1.4.7/16" names a host on a network:
    neither is a network.
    """
    m = _NETWORK.fullmatch(text.strip())
    if m is None:
        return False
    try:
        network = ipaddress.ip_network(f"{m['address']}/{m['prefix']}", strict=True)
    except ValueError:
        return False
    return network.prefixlen < network.max_prefixlen
