"""Files larger than one command can carry to the accelerator machine, in pieces: split here,
carried over consecutive commands, joined and checked there. Standard library only: it runs on
the machine before anything is installed. ``bench/gpu_edition.py prepare`` uses it here;
``bench/gpu_chapter.sh`` runs ``join`` there.

    python3 bench/gpu_transfer.py join CALL_FOLDER [--store /tmp/lmnotes-transfer]

A call folder holds ``manifest.json`` (every file of the chapter's transfer: its SHA-256, size
and pieces, each with its own SHA-256) and the pieces this call carries. ``join`` checks each
carried piece against the manifest and copies it into the store, which survives between the
commands of one warm stretch (``/tmp``); once a file's pieces are all there it joins them,
checks the whole file's SHA-256 and removes the pieces. It prints what is complete and what
is still to come, and fails at once, naming the piece, on a piece or file whose hash is wrong.

Written by hand because no library does this: ``split`` and ``sha256sum`` would do the
splitting and the checks, but not the bookkeeping across commands that a machine which may go
cold between them needs (which pieces arrived, which files are whole).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

MiB = 2**20
#: The most one call carries besides the working tree, and so the largest piece: 52 MiB
#: (54.5 MB), under one command's 64 MiB with the tree (about 10 MiB) beside it.
PIECE_BYTES = 52 * MiB
MANIFEST = "manifest.json"
STORE = Path("/tmp/lmnotes-transfer")


class TransferError(RuntimeError):
    """A piece or a joined file whose SHA-256 is not the manifest's, or a bad manifest."""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(MiB), b""):
            h.update(block)
    return h.hexdigest()


def _write_piece(path: Path, offset: int, size: int, piece: Path) -> dict:
    with open(path, "rb") as f:
        f.seek(offset)
        chunk = f.read(size)
    piece.write_bytes(chunk)
    return {"name": piece.name, "sha256": hashlib.sha256(chunk).hexdigest(), "size": len(chunk)}


def layout(files: list[Path], calls: Path, room: int) -> list[Path]:
    """Lay ``files`` out as one stream cut into calls of ``room`` bytes (at most
    :data:`PIECE_BYTES`): call folders ``calls/1``, ``calls/2``, ... each hold the pieces of
    the files that fall in its stretch of the stream and the whole manifest. A piece is named
    by its file, the file's SHA-256 and its offset (``NAME.<sha256[:12]>.<offset>``), so that
    pieces of another layout of the same file (another chapter's, a later ``prepare``) never
    pass for this one's in the machine's store. A file may so span two calls, and every call
    but the last is full: the fewest calls that can carry the files. Return the call folders
    in order."""
    if not 0 < room <= PIECE_BYTES:
        raise TransferError(
            f"a call's room must be between 1 byte and {PIECE_BYTES / MiB:.0f} MiB, got {room}"
        )
    if len({f.name for f in files}) < len(files):
        raise TransferError("two files of one transfer share a name")
    shutil.rmtree(calls, ignore_errors=True)
    manifest: dict = {"files": {}}
    folders: list[Path] = []
    used = room  # the current call is full: the first piece opens call 1
    for path in files:
        size, offset, digest = path.stat().st_size, 0, sha256(path)
        entry = manifest["files"][path.name] = {"sha256": digest, "size": size, "pieces": []}
        while offset < size or not entry["pieces"]:
            if used == room:
                folders.append(calls / str(len(folders) + 1))
                folders[-1].mkdir(parents=True)
                used = 0
            take = min(room - used, size - offset)
            piece = folders[-1] / f"{path.name}.{digest[:12]}.{offset}"
            entry["pieces"].append(_write_piece(path, offset, take, piece))
            offset, used = offset + take, used + take
    for folder in folders:
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return folders


def _pieces(manifest: dict) -> dict[str, tuple[str, dict]]:
    return {p["name"]: (name, p) for name, e in manifest["files"].items() for p in e["pieces"]}


def join(carried: Path, store: Path = STORE) -> dict[str, list[str]]:
    """Receive the pieces in ``carried`` into ``store`` and join every file whose pieces are
    all there into ``store/files``; return ``{"complete": [...], "waiting": [...]}`` (the
    files whole and checked so far, those still missing a piece)."""
    manifest_path = carried / MANIFEST
    if not manifest_path.is_file():
        raise TransferError(f"{carried} has no {MANIFEST}")
    manifest = json.loads(manifest_path.read_text())
    known = _pieces(manifest)
    received, files = store / "pieces", store / "files"
    received.mkdir(parents=True, exist_ok=True)
    files.mkdir(parents=True, exist_ok=True)
    for piece in sorted(carried.iterdir()):
        if piece.name == MANIFEST:
            continue
        if piece.name not in known:
            raise TransferError(f"{piece.name} is not in {manifest_path}")
        if sha256(piece) != known[piece.name][1]["sha256"]:
            raise TransferError(f"{piece.name}: its SHA-256 is not the manifest's (damaged in transfer?)")
        shutil.copyfile(piece, received / f".{piece.name}.tmp")
        (received / f".{piece.name}.tmp").replace(received / piece.name)
    complete, waiting = [], []
    for name, entry in manifest["files"].items():
        target = files / name
        if target.is_file() and target.stat().st_size == entry["size"] and sha256(target) == entry["sha256"]:
            complete.append(name)
            continue
        parts = [received / p["name"] for p in entry["pieces"]]
        if not all(p.is_file() for p in parts):
            waiting.append(name)
            continue
        partial = files / f".{name}.tmp"
        with open(partial, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    shutil.copyfileobj(f, out, MiB)
        if sha256(partial) != entry["sha256"]:
            partial.unlink()
            raise TransferError(f"{name}: the joined file's SHA-256 is not the manifest's")
        partial.replace(target)
        complete.append(name)
    for name in complete:  # its pieces, of this layout or another, are no longer needed
        for p in received.glob(f"{name}.*"):
            p.unlink()
    return {"complete": complete, "waiting": waiting}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    j = sub.add_parser("join", help="receive a call's pieces; join and check the files they complete")
    j.add_argument("carried", type=Path, help="the call's folder (its manifest and pieces)")
    j.add_argument("--store", type=Path, default=STORE, help=f"where pieces and files are kept ({STORE})")
    args = parser.parse_args(argv)
    try:
        state = join(args.carried, args.store)
    except TransferError as exc:
        print(f"transfer: {exc}", file=sys.stderr)
        return 1
    print(
        f"transfer: {len(state['complete'])} files whole and checked in {args.store / 'files'}"
        + (f"; still waiting for pieces of {', '.join(state['waiting'])}" if state["waiting"] else "")
    )
    return 0 if not state["waiting"] else 3


if __name__ == "__main__":
    sys.exit(main())
