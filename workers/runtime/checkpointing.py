"""Checkpoints encrypted at rest, with key rotation.

LangGraph's :class:`~langgraph.checkpoint.serde.encrypted.EncryptedSerializer` encrypts what
the checkpointer serialises, but ``PostgresSaver.put`` keeps primitive channel values
(``str``, numbers, ``None``) inline in the ``checkpoints`` table's JSON, where the serializer
never sees them: the question itself would sit there in plain text. :class:`EncryptedSaver`
therefore boxes every primitive value so it takes the blob path too, and the blobs and
pending writes are encrypted with AES-256-GCM (NIST SP 800-38D) under a :class:`KeyRing`:
new data uses the current key; data written under an older key stays readable while that
key is still configured. The key id travels with each value (``<type>+aesgcm-<key id>``).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from langgraph.checkpoint.serde.base import CipherProtocol, SerializerProtocol
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from workers.runtime.one_trip_saver import OneTripSaver

CIPHER_PREFIX = "aesgcm-"
NONCE_BYTES = 12


class CheckpointKeyError(ValueError):
    """A checkpoint key is missing, malformed, or a value was written under an unknown key."""


class KeyRing(CipherProtocol):
    """AES-256-GCM with named keys: encrypts under ``current``, decrypts under any.

    Args:
        keys: Key id → 32-byte key. Ids are short names (``[A-Za-z0-9_.-]``), e.g. a date.
        current: The id new data is encrypted under.

    Raises:
        CheckpointKeyError: No keys, ``current`` not among them, a key not 32 bytes, or a bad id.
    """

    def __init__(self, keys: Mapping[str, bytes], current: str) -> None:
        if not keys:
            raise CheckpointKeyError("no checkpoint keys configured")
        if current not in keys:
            raise CheckpointKeyError(
                f"current checkpoint key {current!r} is not among {sorted(keys)}"
            )
        for kid, key in keys.items():
            if not kid or not all(c.isalnum() or c in "_.-" for c in kid):
                raise CheckpointKeyError(
                    f"bad checkpoint key id {kid!r}: use letters, digits, _ . -"
                )
            if len(key) != 32:
                raise CheckpointKeyError(f"checkpoint key {kid!r} has {len(key)} bytes; need 32")
        self._keys = {kid: AESGCM(key) for kid, key in keys.items()}
        self.current = current

    def encrypt(self, plaintext: bytes) -> tuple[str, bytes]:
        """Encrypt under the current key: ``(aesgcm-<id>, nonce ‖ ciphertext+tag)``."""
        nonce = os.urandom(NONCE_BYTES)
        return CIPHER_PREFIX + self.current, nonce + self._keys[self.current].encrypt(
            nonce, plaintext, None
        )

    def decrypt(self, ciphername: str, ciphertext: bytes) -> bytes:
        """Decrypt a value written under any configured key.

        Raises:
            CheckpointKeyError: The value was written under a key that is no longer configured.
            cryptography.exceptions.InvalidTag: The value was altered.
        """
        kid = ciphername.removeprefix(CIPHER_PREFIX)
        aes = self._keys.get(kid)
        if aes is None or not ciphername.startswith(CIPHER_PREFIX):
            raise CheckpointKeyError(
                f"checkpoint written under key {kid!r}, which is not configured "
                f"(configured: {sorted(self._keys)}); add it back to read this thread"
            )
        return aes.decrypt(ciphertext[:NONCE_BYTES], ciphertext[NONCE_BYTES:], None)


def parse_keys(raw: Mapping[str, str]) -> dict[str, bytes]:
    """Key id → key bytes from base64 strings (as in settings or a key file).

    Raises:
        CheckpointKeyError: A key is not valid base64.
    """
    keys = {}
    for kid, value in raw.items():
        try:
            keys[kid] = base64.b64decode(value, validate=True)
        except ValueError as exc:
            raise CheckpointKeyError(f"checkpoint key {kid!r} is not valid base64: {exc}") from exc
    return keys


def load_key_file(path: Path) -> tuple[dict[str, str], str | None]:
    """Read a key file: ``{"current": "<id>", "keys": {"<id>": "<base64>", …}}``.

    Raises:
        CheckpointKeyError: The file is missing or not shaped like that.
    """
    try:
        data = json.loads(path.read_text())
        return dict(data["keys"]), data.get("current")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointKeyError(f"cannot read checkpoint key file {path}: {exc}") from exc


def new_key_file(path: Path, key_id: str) -> None:
    """Write a fresh key file with one random 32-byte key, readable by its owner only."""
    body = {"current": key_id, "keys": {key_id: base64.b64encode(os.urandom(32)).decode()}}
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(body, out)


class _Boxed:
    """A primitive channel value sent down the blob (serialised, encrypted) path."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _Unboxing(SerializerProtocol):
    """Serialises a :class:`_Boxed` value as the value itself."""

    def __init__(self, inner: SerializerProtocol) -> None:
        self._inner = inner

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return self._inner.dumps_typed(obj.value if isinstance(obj, _Boxed) else obj)

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        return self._inner.loads_typed(data)


def encrypted_serde(ring: KeyRing) -> SerializerProtocol:
    """LangGraph's encrypted serializer over its JSON-plus serializer, under ``ring``."""
    return _Unboxing(EncryptedSerializer(ring, JsonPlusSerializer()))


GUARD_KEY = "crag_guard"
"""``configurable`` key of a run's :class:`CheckpointGuard` (not stored in checkpoints:
LangGraph copies only primitive ``configurable`` values into checkpoint metadata)."""


class CheckpointGuard(Protocol):
    """What a run must still hold to write a checkpoint (the thread's lock)."""

    def check(self) -> None:
        """Raise (``workers.contracts.errors.LockLost``) if the run may no longer write."""

    def check_recent(self) -> None:
        """As :meth:`check`, but may rely on a confirmation of a moment ago (no round trip)."""


class GuardedSaver(OneTripSaver):
    """A ``PostgresSaver`` that asks the run's :class:`CheckpointGuard` before every write.

    Each write is one statement (:class:`~workers.runtime.one_trip_saver.OneTripSaver`).

    A run that lost its thread lock is stopped before its next checkpoint or pending
    write, not only before it publishes: a run the fleet has given up on must not move the
    thread's state on (the Postgres fence, :mod:`workers.db.fencing`, covers the case where
    a newer run already holds the thread; this covers the time before one does).
    """

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        """Check the guard, then store as :meth:`OneTripSaver.put` does."""
        _check_guard(config)
        return super().put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        """Check the guard, then store as :meth:`OneTripSaver.put_writes` does."""
        _check_guard(config)
        super().put_writes(config, writes, task_id, task_path)


def _check_guard(config: Any) -> None:
    guard = (config or {}).get("configurable", {}).get(GUARD_KEY)
    if guard is not None:
        guard.check_recent()


class EncryptedSaver(GuardedSaver):
    """A :class:`GuardedSaver` that stores no channel value in plain text (see module docstring)."""

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        """Box primitive values, then store as :meth:`GuardedSaver.put` does."""
        values = {
            k: _Boxed(v) if v is None or isinstance(v, str | int | float | bool) else v
            for k, v in checkpoint["channel_values"].items()
        }
        boxed: Any = dict(checkpoint)
        boxed["channel_values"] = values
        return super().put(config, boxed, metadata, new_versions)


def serde_from_settings(settings: Any) -> SerializerProtocol | None:
    """The checkpoint serializer the settings ask for (``None``: LangGraph's plain one).

    Raises:
        CheckpointKeyError: Encryption is on but no usable key is configured; the message
            says which settings to set.
    """
    ring = key_ring_from_settings(settings)
    return None if ring is None else encrypted_serde(ring)


def key_ring_from_settings(settings: Any) -> KeyRing | None:
    """The checkpoint keys of the settings (``None`` with encryption off).

    The same ring encrypts checkpoints and the payloads of progress events
    (:mod:`workers.core.progress`), which hold the same kind of text.

    Raises:
        CheckpointKeyError: Encryption is on but no usable key is configured; the message
            says which settings to set.
    """
    if not settings.checkpoint_encryption:
        return None
    raw = {kid: v.get_secret_value() for kid, v in settings.checkpoint_keys.items()}
    current = settings.checkpoint_key_id or None
    if settings.checkpoint_key_file is not None:
        from_file, file_current = load_key_file(settings.checkpoint_key_file)
        raw = {**from_file, **raw}
        current = current or file_current
    if not raw:
        raise CheckpointKeyError(
            "checkpoints are encrypted but no key is configured: set CRAG_CHECKPOINT_KEYS "
            "or CRAG_CHECKPOINT_KEY_FILE (infra/up writes .infra/checkpoint-keys.json for "
            "local use), or CRAG_CHECKPOINT_ENCRYPTION=false for a throwaway database"
        )
    if current is None:
        if len(raw) > 1:
            raise CheckpointKeyError("several checkpoint keys: set CRAG_CHECKPOINT_KEY_ID")
        current = next(iter(raw))
    return KeyRing(parse_keys(raw), current)
