"""Artificial languages and the models that learn them (LeBrun, Sordoni & O'Donnell 2022,
§3.1): a trained LM L read at softmax temperature T defines p_L over token-id sequences, with
exact log-probabilities. The distortion chapter.

- :class:`Language` samples p_L (in the shared cache) and scores any id sequence under it.
  Sequences stay **token ids** end to end: decoding and re-encoding would swap a sample for
  another sequence with another p_L (:attr:`SampleSet.roundtrip_changed` counts how often).
  The language is that of *finished* samples of at most ``max_tokens − 1`` tokens (EOS is the
  last of ``max_tokens``): p_L′(x) = p_L(x) / (1 − P_trunc), with P_trunc estimated by the
  unfinished share, a constant shift of every log-probability. Longer sequences lie outside
  its support (log p_L′ = −∞).
- :data:`LEARNERS` are the models M, trained from scratch on L's ids with L's tokenizer
  (:func:`learn`), with a per-epoch :func:`monitor` that scores fixed train and test subsets.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from lmnotes.core import io
from lmnotes.models import memo
from lmnotes.text import segment as seglib
from lmnotes.models.base import LanguageModel, ModelError
from lmnotes.models.train import TrainConfig

#: The models M: (architecture, network settings). The first three are the default profile's
#: (a V = 1k head keeps them cheap); the larger ones are for the gpu profile.
LEARNERS = {
    "tf-tiny": ("transformer", dict(d_model=64, n_layers=2, n_heads=2, context=128, dropout=0.0)),
    "tf-small": ("transformer", dict(d_model=128, n_layers=2, n_heads=4, context=128, dropout=0.0)),
    "lstm": ("lstm", dict(d_model=192, n_layers=1, dropout=0.0)),
    "tf-medium": ("transformer", dict(d_model=256, n_layers=4, n_heads=4, context=128, dropout=0.0)),
    "tf-large": ("transformer", dict(d_model=512, n_layers=8, n_heads=8, context=128, dropout=0.1)),
    "lstm-large": ("lstm", dict(d_model=1024, n_layers=2, dropout=0.2)),
}


#: How the learners train, by size: fixed epochs (set by :func:`learn`), no early stop, the
#: best validation epoch kept. float32 on a CPU (the same weights on every CPU), bf16 on a GPU.
TRAINING = {
    "cpu": TrainConfig(block=128, batch_size=32, lr=3e-3, warmup=50, precision="float32"),
    "gpu": TrainConfig(block=128, batch_size=64, lr=1e-3, warmup=200, precision="bfloat16"),
}


class NoneEnded(ModelError):
    """No sample of a language ended within its ``max_tokens``."""


@dataclass
class SampleSet:
    """Finished samples of a language, as ids (without BOS and EOS), with their log p_L′."""

    ids: list[list[int]]
    logp: np.ndarray  # log p_L′(x), EOS included, truncation-corrected
    n_drawn: int  # samples drawn, finished or not
    unfinished: int  # samples cut at the length cap (left out)
    roundtrip_changed: int  # finished samples that decode → encode does not give back

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def lengths(self) -> np.ndarray:
        """Tokens per sequence, EOS included (the n of a per-token rate)."""
        return np.array([len(s) + 1 for s in self.ids])

    def take(self, a: int, b: int) -> "SampleSet":
        """Samples a … b − 1 (the counts of the whole draw are kept)."""
        return replace(self, ids=self.ids[a:b], logp=self.logp[a:b])

    def up_to_tokens(self, budget: int) -> "SampleSet":
        """The first samples whose tokens (EOS included) add up to at most ``budget``: training
        sets of equal tokens, hence of equal updates, from languages of different lengths."""
        n = int(np.searchsorted(np.cumsum(self.lengths), budget, side="right"))
        if n == 0:
            raise ValueError(f"a budget of {budget} tokens holds no sample")
        return self.take(0, n)


class Language:
    """p_L: ``lm`` sampled ancestrally at ``temperature``, up to ``max_tokens`` tokens with EOS
    (default: what the window holds after BOS)."""

    def __init__(self, lm: LanguageModel, temperature: float, max_tokens: int | None = None):
        if not temperature > 0:
            raise ValueError(f"the temperature must be > 0, got {temperature}")
        self.lm, self.temperature = lm, float(temperature)
        self.max_tokens = int(max_tokens or lm.max_length)
        if not 2 <= self.max_tokens <= lm.max_length:
            raise ValueError(f"max_tokens must lie in [2, {lm.max_length}] (the window), got {max_tokens}")
        self.log_finished = 0.0  # log(1 − P_trunc), set by the first sample()

    @property
    def vocabulary(self) -> list[int]:
        """The ids a sequence may hold: all but the special ones (PAD, BOS/EOS, UNK)."""
        special = {self.lm.bos_id, self.lm.eos_id, self.lm.pad_id}
        if hasattr(self.lm, "seg"):  # a self-trained model: its segmentation's <unk> too
            special.add(seglib.UNK)
        return [i for i in range(self.lm.vocab_size) if i not in special]

    def sample(self, n: int, seed: int = 0, batch_size: int = 256) -> SampleSet:
        """``n`` draws of p_L (cached); the finished ones, and P_trunc from the others."""
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"draw at least one sample, got n = {n!r}")
        s = memo.sample(
            self.lm,
            n,
            "ancestral",
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=seed,
            batch_size=batch_size,
        )
        done = np.asarray(s.finished, dtype=bool)
        if not done.any():
            raise NoneEnded(f"none of {n} samples ended within {self.max_tokens} tokens; raise max_tokens")
        self.log_finished = float(np.log(done.mean()))
        ids = [list(t) for t, d in zip(s.token_ids, done) if d]
        changed = sum(self.lm.encode(self.lm.decode(t)) != t for t in ids)
        return SampleSet(
            ids, np.asarray(s.logprob_sampling)[done] - self.log_finished, n, int((~done).sum()), int(changed)
        )

    def token_logprobs(self, seqs) -> list[np.ndarray]:
        """log p_L(x_t | x_<t) at T for each token and EOS (no truncation correction)."""
        return self.lm.score_ids(seqs, temperature=self.temperature)

    def logprob(self, seqs) -> np.ndarray:
        """log p_L′(x) of id sequences: −∞ for those longer than the cap (outside the support)."""
        seqs = [list(s) for s in seqs]
        inside = [i for i, s in enumerate(seqs) if len(s) < self.max_tokens]
        out = np.full(len(seqs), -np.inf)
        if inside:
            lp = self.token_logprobs([seqs[i] for i in inside])
            out[inside] = np.array([x.sum() for x in lp]) - self.log_finished
        return out

    def check_learner(self, lm: LanguageModel) -> None:
        """M must share L's vocabulary (ids mean the same tokens), or errors are meaningless."""
        if lm.vocab_size != self.lm.vocab_size or lm.token_bytes() != self.lm.token_bytes():
            raise ModelError(
                f"{lm.name} and the language's model {self.lm.name} have different vocabularies "
                f"({lm.vocab_size} and {self.lm.vocab_size} types): train M with L's tokenizer"
            )


class Borrowed:
    """A model's own tokenizer as a segmentation, so that learners of an L without one of
    this package's segmentations (a pretrained L, the paper's App. A.2) share L's ids and
    specials. It keeps L's tokenizer object (or L itself, for a toy), never its weights."""

    kind = "borrowed"

    def __init__(self, lm: LanguageModel):
        self.vocab_size = lm.vocab_size
        self.bos_id, self.eos_id, self.pad_id = lm.bos_id, lm.eos_id, lm.pad_id
        self._bytes = lm.token_bytes()
        self._tokenizer = getattr(lm, "tokenizer", None)
        self._lm = None if self._tokenizer is not None else lm

    def encode(self, text: str) -> list[int]:
        if self._tokenizer is not None:
            return self._tokenizer.encode(text, add_special_tokens=False)
        return self._lm.encode(text)

    def decode(self, ids) -> str:
        if self._tokenizer is not None:
            return self._tokenizer.decode(
                list(ids), skip_special_tokens=False, clean_up_tokenization_spaces=False
            )
        return self._lm.decode(ids)

    def token_bytes(self) -> list[bytes | None]:
        return list(self._bytes)


def roundtrip(lm: LanguageModel, seqs) -> dict[str, int]:
    """What decoding id sequences to text and encoding the text again does to them: ``kept``
    (the same ids), ``same text`` (other ids for the same text: L sampled a segmentation that
    its tokenizer would not produce) and ``text changed`` (the decoded text itself does not
    survive, e.g. byte-level tokens that do not form valid UTF-8 and decode lossily)."""
    table = lm.token_bytes()
    out = {"kept": 0, "same text": 0, "text changed": 0}
    for s in seqs:
        s = list(map(int, s))
        text = lm.decode(s)
        if lm.encode(text) == s:
            out["kept"] += 1
        else:  # the text keeps the sampled bytes, or decoding replaced some (or a special token's)
            same = text.encode("utf-8") == b"".join(table[i] or b"" for i in s)
            out["same text" if same else "text changed"] += 1
    return out


def tokenizer(lm: LanguageModel):
    """What a learner of ``lm``'s language segments with: its segmentation, if it is a model
    of this package, else its own tokenizer (:class:`Borrowed`)."""
    return lm.seg if hasattr(lm, "seg") else Borrowed(lm)


def monitor(language: Language, train: SampleSet, test: SampleSet):
    """A training callback: the estimation error of the current model on fixed train and test
    subsets after each epoch (the paper's Fig. 2), and its key for the model's cache."""
    from lmnotes.studies.distortion.distortion import estimation_error

    def callback(epoch: int, lm: LanguageModel) -> dict:
        return {
            name: estimation_error(model_logprob(lm, s.ids), s.logp)
            for name, s in (("train_error", train), ("test_error", test))
        }

    return callback, io.digest("monitor", train.ids, test.ids, list(map(float, train.logp)))


def model_logprob(lm: LanguageModel, seqs) -> np.ndarray:
    """log p_M(x) of id sequences, EOS included."""
    return np.array([x.sum() for x in lm.score_ids([list(s) for s in seqs])])


def _next_token_logprobs(lm: LanguageModel, seqs, temperature: float, batch_size: int = 64, dtype=None):
    """(i, log p(· | BOS, x_<t) for t = 1 … |x| + 1) for each id sequence i, at
    ``temperature``: one forward pass per batch of sequences sorted by length, in float32 (or
    ``dtype``). The sequences must fit the window (BOS + tokens)."""
    import torch

    dtype = dtype or torch.float32
    seqs = [[lm.bos_id] + list(map(int, s)) for s in seqs]
    if any(len(s) > lm.max_length for s in seqs):
        raise ValueError(f"{lm.name}: a sequence is longer than the window of {lm.max_length} tokens")
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i]), reverse=True)
    with torch.inference_mode():
        for a in range(0, len(order), batch_size):
            idx = order[a : a + batch_size]
            states = lm._padded_states([seqs[i] for i in idx], len(seqs[idx[0]]))
            logp = torch.log_softmax(lm._head(states).to(dtype) / temperature, -1).cpu()
            for r, i in enumerate(idx):
                yield i, logp[r, : len(seqs[i])]


def teacher_targets(language: Language, seqs, batch_size: int = 64, draws: int = 0, seed: int = 0):
    """L's tempered next-token distributions at every target of the training stream that
    :func:`lmnotes.models.train.train` builds from ``seqs`` (each sequence's tokens and its EOS, given
    BOS and the tokens before): float16 [Σ(|x| + 1), V], the distillation control's targets.
    With ``draws`` = k > 0, each distribution is replaced by the empirical one of k tokens
    drawn from it (seeded): between learning from samples (one draw, at other contexts) and
    distillation (k → ∞).

    L runs in float64 here (a copy; the cached model is left alone), and the distributions are
    rounded to float16 once: in float32, the padded batched forward pass and the exp kernels
    leave last-bit differences that depend on the batch's padding and on the CPU's kernels,
    and a distilled learner, the only one trained on L's floating-point outputs rather than
    on token ids, carries them into its weights."""
    import copy

    import torch

    lm = language.lm
    if hasattr(lm, "net"):
        lm = copy.deepcopy(lm)
        lm.net = lm.net.double()
    out = {}
    for i, lp in _next_token_logprobs(lm, seqs, language.temperature, batch_size, dtype=torch.float64):
        p = lp.exp()
        if draws:  # each sequence's own seeded stream: the draws do not depend on the batching
            gen = torch.Generator().manual_seed(seed * 1_000_003 + i)
            picks = torch.multinomial(p, draws, replacement=True, generator=gen)
            p = torch.zeros_like(p).scatter_add_(1, picks, torch.ones(picks.shape, dtype=p.dtype)) / draws
        out[i] = p.half()
    return torch.cat([out[i] for i in range(len(out))])


def learn(
    language: Language,
    learner: str,
    train: SampleSet,
    valid: SampleSet,
    epochs: int,
    config: TrainConfig,
    seed: int = 0,
    tag: str = "",
    watch: tuple[SampleSet, SampleSet] | None = None,
    distill: bool = False,
    device: str | None = "cpu",
    progress: bool | None = None,
    teacher_draws: int = 0,
    patience: int = 0,
) -> LanguageModel:
    """Train learner ``learner`` (a name of :data:`LEARNERS`) from scratch on ``train``'s ids for
    ``epochs`` epochs, keeping the best-valid weights; with ``watch`` = (train subset, test
    subset), :func:`monitor` records the errors after every epoch in ``lm.history``. With
    ``distill``, the targets are L's full next-token distributions on the same sequences
    instead of the sampled tokens (:func:`teacher_targets`); with ``teacher_draws`` = k as well,
    the empirical distributions of k tokens drawn from them. ``patience`` > 0 stops training
    after that many epochs without a better validation loss (0: run every epoch).

    (14 parameters: one training run's settings, the chapter's parameters (epochs, config, seed,
    patience, device), and what it watches or distils.)
    """
    from lmnotes.models import trained

    if learner not in LEARNERS:
        raise ValueError(f"unknown learner {learner!r}; use one of {list(LEARNERS)}")
    if len(train) == 0:
        raise ValueError("N = 0: the learner needs at least one training sequence")
    arch, net = LEARNERS[learner]
    callback, key = monitor(language, *watch) if watch else (None, "")
    config = replace(config, max_epochs=epochs, max_steps=10**9, eval_every=0, patience=patience or 10**9)
    if teacher_draws and not distill:
        raise ValueError("teacher_draws needs distill=True")
    kind = f"/distilled-{teacher_draws}draws" if teacher_draws else "/distilled" if distill else ""
    name = f"M/{learner}{kind}{'/' + tag if tag else ''}"
    lm = trained.on_ids(
        arch,
        tokenizer(language.lm),
        train.ids,
        valid.ids,
        name,
        net,
        config,
        tokenizer_key=f"{language.lm.cache_key}",
        seed=seed,
        device=device,
        callback=callback,
        callback_key=key,
        progress=progress,
        soft_targets=(lambda: teacher_targets(language, train.ids, draws=teacher_draws, seed=seed))
        if distill
        else None,
        teacher_key=(
            f"distill {language.lm.cache_key} T={language.temperature} float64"
            + (f" draws={teacher_draws}" if teacher_draws else "")
        )
        if distill
        else "",
    )
    language.check_learner(lm)
    return lm


def temperature_scan(lm: LanguageModel, seqs, taus, batch_size: int = 64) -> dict[str, np.ndarray]:
    """Per id sequence, from one forward pass of ``lm``: ``entropy``, Σ_t H(p_M(· | x_<t)), and
    ``nll``, [sequences, len(taus)], the negative log-likelihood of the sequence (EOS included)
    with the logits divided by each τ (log_softmax(log p / τ) = log_softmax(z / τ): the
    log-probabilities serve as logits). ``entropy`` minus ``nll`` at τ = 1, over the tokens,
    is the calibration gap H_M − CE_M: zero in expectation for a calibrated model."""
    import torch

    taus = torch.tensor([float(t) for t in taus])
    ent, nll = np.zeros(len(seqs)), np.zeros((len(seqs), len(taus)))
    for i, lp in _next_token_logprobs(lm, seqs, 1.0, batch_size):
        target = torch.tensor(list(map(int, seqs[i])) + [lm.eos_id])
        ent[i] = float(-(lp.exp() * lp).sum().double())
        scaled = torch.log_softmax(lp[None] / taus[:, None, None], -1)  # [τ, positions, V]
        nll[i] = -scaled[:, torch.arange(len(target)), target].double().sum(1).numpy()
    return {"entropy": ent, "nll": nll}


def entropies(lm: LanguageModel, seqs, temperature: float = 1.0, batch_size: int = 64) -> list[np.ndarray]:
    """H(p(· | BOS, x_<t)) in nats at every position t of each id sequence (x_1 … EOS), under
    ``lm`` at ``temperature``: the per-prefix entropies behind the entropy gap ΔH = H_M − H_L.
    Sequences must fit the window (BOS + tokens)."""
    out = dict(
        (i, -(lp.exp() * lp).sum(-1).numpy().astype(np.float64))
        for i, lp in _next_token_logprobs(lm, seqs, temperature, batch_size)
    )
    return [out[i] for i in range(len(out))]
