"""The GPU edition's transfer, tested on the CPU with small files: laying files out in calls
(bench/gpu_transfer.py), joining them call by call as the accelerator machine does
(bench/gpu_chapter.sh --receive), and trimming a wheel (bench/gpu_edition.py)."""

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
transfer = importlib.import_module("gpu_transfer")


def _edition():
    spec = importlib.util.spec_from_file_location("gpu_edition", ROOT / "bench" / "gpu_edition.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def files(tmp_path):
    rng = __import__("random").Random(0)
    out = []
    for name, size in [("a.whl", 10), ("big.gguf", 41), ("empty.txt", 0), ("c.tar.gz", 7)]:
        path = tmp_path / "src" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(bytes(rng.randrange(256) for _ in range(size)))
        out.append(path)
    return out


def test_layout_fills_every_call_but_the_last(files, tmp_path):
    calls = transfer.layout(files, tmp_path / "calls", room=16)
    sizes = [sum(p.stat().st_size for p in c.iterdir() if p.name != transfer.MANIFEST) for c in calls]
    assert sizes == [16, 16, 16, 10]  # 58 bytes: the fewest calls of 16
    manifest = json.loads((calls[0] / transfer.MANIFEST).read_text())
    assert [len(e["pieces"]) for e in manifest["files"].values()] == [
        1,
        4,
        1,
        1,
    ]  # big.gguf spans all four calls
    assert all(json.loads((c / transfer.MANIFEST).read_text()) == manifest for c in calls)


def test_join_call_by_call_gives_the_files_back(files, tmp_path):
    calls = transfer.layout(files, tmp_path / "calls", room=16)
    store = tmp_path / "store"
    states = [transfer.join(c, store) for c in calls]
    assert states[0] == {"complete": ["a.whl"], "waiting": ["big.gguf", "empty.txt", "c.tar.gz"]}
    assert states[-1] == {"complete": [f.name for f in files], "waiting": []}
    for f in files:
        assert (store / "files" / f.name).read_bytes() == f.read_bytes()
    assert not list((store / "pieces").iterdir())  # the pieces of a joined file are removed
    # a call carried again (the machine still warm) changes nothing
    assert transfer.join(calls[1], store)["complete"] == [f.name for f in files]


def test_a_damaged_piece_is_named_and_nothing_is_joined(files, tmp_path):
    calls = transfer.layout(files, tmp_path / "calls", room=16)
    piece = next(calls[1].glob("big.gguf.*"))
    data = bytearray(piece.read_bytes())
    data[0] ^= 1
    piece.write_bytes(bytes(data))
    store = tmp_path / "store"
    transfer.join(calls[0], store)
    with pytest.raises(transfer.TransferError, match=piece.name):
        transfer.join(calls[1], store)
    assert not (store / "files" / "big.gguf").exists()


def test_a_call_larger_than_a_command_allows_is_refused(files, tmp_path):
    with pytest.raises(transfer.TransferError, match="room"):
        transfer.layout(files, tmp_path / "calls", room=transfer.PIECE_BYTES + 1)
    with pytest.raises(transfer.TransferError, match="share a name"):
        transfer.layout([files[0], files[0]], tmp_path / "calls", room=16)


def test_the_machine_script_receives_in_order_and_refuses_a_missing_call(files, tmp_path):
    calls = transfer.layout(files, tmp_path / "calls", room=16)
    env = {**os.environ, "OUT": str(tmp_path / "out"), "LMNOTES_TRANSFER": str(tmp_path / "store")}
    script = ["bash", str(ROOT / "bench" / "gpu_chapter.sh")]

    def receive(call, *chapters):
        return subprocess.run(
            [*script, "--receive", str(call), *chapters], env=env, capture_output=True, text=True
        )

    first = receive(calls[0])
    assert first.returncode == 0 and "still waiting" in first.stdout
    # a folder that is no call (no manifest) stops the script, chapter or not
    (tmp_path / "nowhere").mkdir()
    assert receive(tmp_path / "nowhere").returncode == 1
    # the last call, with a chapter to run, while call 2 and 3 never came: stops before running
    early = receive(calls[-1], "06_distortion")
    assert early.returncode == 1 and "incomplete" in early.stderr
    for c in calls[1:]:
        assert receive(c).returncode == 0
    assert (
        hashlib.sha256((tmp_path / "store" / "files" / "big.gguf").read_bytes()).hexdigest()
        == hashlib.sha256(files[1].read_bytes()).hexdigest()
    )


def test_trim_wheel_keeps_english_and_its_record(tmp_path):
    edition = _edition()
    whl = tmp_path / "wordfreq-3.1.1-py3-none-any.whl"
    names = [
        "wordfreq/__init__.py",
        "wordfreq/data/large_en.msgpack.gz",
        "wordfreq/data/large_fr.msgpack.gz",
        "wordfreq/data/small_en.msgpack.gz",
        "wordfreq/data/jieba_zh.txt",
    ]
    record = "".join(f"{n},sha256=x,1\n" for n in names) + "wordfreq-3.1.1.dist-info/RECORD,,\n"
    with zipfile.ZipFile(whl, "w") as z:
        for n in names:
            z.writestr(n, b"x")
        z.writestr("wordfreq-3.1.1.dist-info/RECORD", record)
    edition.trim_wheel(whl, edition._english_only)
    with zipfile.ZipFile(whl) as z:
        kept = z.namelist()
        record = z.read("wordfreq-3.1.1.dist-info/RECORD").decode()
    assert kept == [
        "wordfreq/__init__.py",
        "wordfreq/data/large_en.msgpack.gz",
        "wordfreq/data/small_en.msgpack.gz",
        "wordfreq-3.1.1.dist-info/RECORD",
    ]
    assert "large_fr" not in record and "jieba" not in record and "large_en" in record


def test_step_times_are_read_from_the_training_log():
    """bench/gpu_budget.py takes each model's seconds a step from the last progress line before
    the end of its training (the time left at the mean rate so far)."""
    budget = importlib.import_module("gpu_budget")
    log = (
        "lmnotes: training wiki/transformer-char: about 16 min 23 s to go\n"
        "lmnotes: training wiki/transformer-char: step 500/2460, valid loss 1.670, about 1 min 42 s to go\n"
        "lmnotes: training wiki/transformer-char: step 2000/2460, valid loss 1.487, about 22 s to go\n"
        "lmnotes: training wiki/transformer-char: step 2460/2460, valid loss 1.499, about 0 s to go\n"
        "lmnotes: training wiki/transformer-bpe8k: step 500/600, valid loss 5.0, about 1 h 2 min 3 s to go\n"
    )
    assert budget.measured_steps(log) == {"char": (2460, 22 / 460), "bpe8000": (600, 3723 / 100)}
    assert budget.STEP_S["char"] == pytest.approx(22 / 460)  # the H200 log says so


def test_steps_per_epoch_counted_here_are_the_h200_logs():
    """Counting the training stream's blocks here gives the steps the H200 run planned."""
    budget = importlib.import_module("gpu_budget")
    for seg, (steps, _) in budget.measured_steps(budget.LOG.read_text()).items():
        assert budget.steps_per_epoch(seg) * budget.EPOCHS_MEASURED == steps, seg
    assert budget.train_s("byte", epochs=20) == pytest.approx(2460 * 21 / 460)


def test_every_chapter_at_the_gpu_profile_leaves_room_in_its_slice():
    """params/gpu.yaml is sized to the plan: set-up, conversions and training leave each
    chapter at least 2 minutes of its 8-minute slice for its own work."""
    edition, budget = _edition(), importlib.import_module("gpu_budget")
    for name in edition.ORDER:
        pretrained, _ = edition._chapter_needs(name)
        floor = sum(budget.floor(name, edition.gpu_values(name), pretrained).values())
        assert floor <= budget.SLICE_S - 120, (name, floor)
    # the first run of 03 at the old profile (20 epochs, char, Gemma-3) would not have fitted
    old = {
        **edition.gpu_values("03_segmentation"),
        "segmentations": ["char", "byte", "bpe1000", "bpe4000", "bpe8000", "bpe16000", "bpe32000", "word"],
    }
    slow = {
        k: v * 20 / budget.max_epochs() if k.startswith("train") else v
        for k, v in budget.floor("03_segmentation", old, ["smollm2-135m", "gemma3-270m"]).items()
    }
    assert sum(slow.values()) > budget.SLICE_S


def test_publish_brings_a_gpu_page_in_and_refuses_a_cpu_one(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    edition = _edition()
    came_back = tmp_path / "out"
    (came_back / "claims").mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["lmnotes"] = {"edition": {"profile": "gpu", "device": "NVIDIA H200"}}
    nbformat.write(nb, came_back / "06_distortion.ipynb")
    (came_back / "claims" / "06_distortion.csv").write_text("claim,verdict\n")
    book = tmp_path / "book"
    assert edition.publish(came_back, book) == ["06_distortion"]
    assert (book / "gpu" / "06_distortion.ipynb").is_file()
    assert (book / "gpu" / "claims" / "06_distortion.csv").is_file()
    nb.metadata["lmnotes"]["edition"]["device"] = "the CPU (no GPU)"  # editions.CPU_DEVICE
    nbformat.write(nb, came_back / "06_distortion.ipynb")
    with pytest.raises(SystemExit, match="not at gpu on a GPU"):
        edition.publish(came_back, tmp_path / "book2")


def test_pieces_of_another_layout_left_in_the_store_do_not_mix(files, tmp_path):
    """A chapter's transfer cut short leaves pieces in the store; another chapter's layout
    cuts the same file elsewhere: its join must neither use them nor fail on them."""
    store = tmp_path / "store"
    first = transfer.layout(files, tmp_path / "first", room=16)
    for call in first[:3]:  # the first transfer stops before its last call
        transfer.join(call, store)
    second = transfer.layout(files[1:], tmp_path / "second", room=20)
    states = [transfer.join(c, store) for c in second]
    assert states[-1]["complete"] == [f.name for f in files[1:]]
    assert (store / "files" / "big.gguf").read_bytes() == files[1].read_bytes()
    assert not list((store / "pieces").glob("big.gguf.*"))
