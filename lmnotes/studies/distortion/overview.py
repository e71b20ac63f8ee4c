"""The artificial language's samples and the learners at a glance: the first sections of the
distortion chapter (06), after LeBrun, Sordoni & O'Donnell (2022), §3 and App. A.4.

- :func:`split` cuts one draw of L into training, validation and test sequences;
- :func:`sample_facts` gives the facts the chapter states about the draw (truncation, the
  text round trip, the rescoring check, duplicates, the entropy rate), in the order it states
  them, and :func:`examples` a few samples decoded for reading;
- :func:`mean_pp` is the paper's Eq. 1, the mean of per-sequence perplexities (not the corpus
  perplexity), and :func:`overview` the table of L and its learners on L's test sequences and
  on real text (the paper's Tables 4 and 5); :func:`real_text` encodes the real sentences;
- :func:`worst_sequence` explains what dominates the fragile mean of Eq. 1;
- L is chapter 03's Transformer (:func:`lmnotes.models.recipes.transformer`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from lmnotes.report.glue import Prose
from lmnotes.studies.distortion import language as LG
from lmnotes.studies.distortion.resample import num


def split(draw, n_train: int, n_valid: int, n_test: int):
    """The training, validation and test sequences of one draw of L, in that order; an error
    when fewer than half the test sequences finished."""
    if len(draw) < n_train + n_valid + n_test // 2:
        raise ValueError(f"only {len(draw)} finished samples; lower the temperature")
    return (
        draw.take(0, n_train),
        draw.take(n_train, n_train + n_valid),
        draw.take(n_train + n_valid, len(draw)),
    )


def sample_facts(L, lang, draw, train, test) -> dict:
    """What the chapter states about the draw, as the text it shows, by name: L's name, size and
    length cap, the draws and the unfinished share P_trunc, the share whose ids change through
    decoding and re-encoding (and whether their text does), the sampler's largest disagreement
    with a fresh scoring pass, the test sequences also in training, the mean length and the
    entropy rate −mean log p_L / mean length."""
    p_trunc = draw.unfinished / draw.n_drawn
    # the sampler's log-probabilities against a fresh scoring pass
    rescored = lang.logprob(test.ids)
    out = {
        "L_name": L.name,
        "cap": lang.max_tokens,
        "L_params": f"{L.n_parameters / 1e6:.1f} M",
        "n_drawn": f"{draw.n_drawn:,}",
        "n_unfinished": f"{draw.unfinished:,}",
        "p_trunc": f"{p_trunc:.2%}",
        "roundtrip": f"{draw.roundtrip_changed / len(draw):.0%}",
    }
    trip = LG.roundtrip(L, draw.ids)
    out["trip_same"] = f"{trip['same text'] / len(draw):.0%}"
    out["trip_text"] = f"{trip['text changed'] / len(draw):.1%}"
    out["rescore_diff"] = f"{np.abs(rescored - test.logp).max():.1e}"
    train_set = {tuple(s) for s in train.ids}
    dup = np.array([tuple(s) in train_set for s in test.ids])
    out["n_dup"] = f"{dup.sum():,}"
    out["mean_len"] = f"{test.lengths.mean():.1f}"
    entropy_rate = -test.logp.mean() / test.lengths.mean()
    out["entropy_rate"] = f"{entropy_rate:.2f}"
    return out


def examples(L, test, k: int = 4) -> pd.DataFrame:
    """The first ``k`` test samples, decoded for reading, with their tokens and log p_L′."""
    return pd.DataFrame(
        {
            "sample (decoded for reading)": [L.decode(s) for s in test.ids[:k]],
            "tokens": test.lengths[:k] - 1,
            "log p_L′": test.logp[:k],
        }
    )


def mean_pp(logp, lengths) -> float:
    """The paper's Eq. 1: the mean of per-sequence perplexities."""
    return float(np.mean(np.exp(-logp / lengths)))


def real_text(L, sentences, max_tokens: int):
    """Real sentences encoded with L's tokenizer, those that fit under the cap: their ids, their
    lengths with EOS, and their UTF-8 bytes in all."""
    real_pairs = [(t, s) for t, s in ((t, L.encode(t)) for t in sentences) if 0 < len(s) < max_tokens]
    real = [s for _, s in real_pairs]
    real_n = np.array([len(s) + 1 for s in real])
    real_bytes = sum(len(t.encode("utf-8")) for t, _ in real_pairs)
    return real, real_n, real_bytes


def overview(L, models: dict, test, logp_m: dict, real, real_n, real_bytes) -> pd.DataFrame:
    """L and its learners: parameters, mean PP (Eq. 1) and corpus PP on L's test sequences, and
    mean PP and bits per byte on real text (EOS included)."""
    n = test.lengths
    lp_real = [LG.model_logprob(m, real) for m in [L] + list(models.values())]
    return pd.DataFrame(
        {
            "model": ["L (the truth)"] + list(models),
            "parameters": [L.n_parameters] + [m.n_parameters for m in models.values()],
            "mean PP (Eq. 1)": [mean_pp(test.logp, n)] + [mean_pp(lp, n) for lp in logp_m.values()],
            "corpus PP": [np.exp(-test.logp.sum() / n.sum())]
            + [np.exp(-lp.sum() / n.sum()) for lp in logp_m.values()],
            "mean PP on real text (Table 5)": [mean_pp(lp, real_n) for lp in lp_real],
            "bits per byte on real text": [-lp.sum() / np.log(2) / real_bytes for lp in lp_real],
        }
    )


def worst_sequence(models: dict, logp_m: dict, test) -> str:
    """The sentence on the sequence that dominates the worst learner's mean PP (Eq. 1): its
    per-token log-probability under the learner and L, and where the learner derails."""
    n = test.lengths
    worst_model = max(logp_m, key=lambda k: mean_pp(logp_m[k], n))
    worst = int(np.argmax(-logp_m[worst_model] / n))
    w_tok = models[worst_model].score_ids([test.ids[worst]])[0]
    if not (w_tok < -20).any():
        return (
            f"The mean of per-sequence perplexities is fragile where a model derails; "
            f"none does here: {worst_model}'s worst sequence, of {n[worst]} tokens (EOS "
            f"included), gets {num(logp_m[worst_model][worst] / n[worst])} nats per token, "
            f"against {num(test.logp[worst] / n[worst])} under L, and none of its tokens "
            "less than −20 nats."
        )
    return (
        f"The mean of per-sequence perplexities is fragile: "
        f"{worst_model}'s is dominated by one sequence of {n[worst]} tokens "
        f"(EOS included) to which it gives "
        f"{num(logp_m[worst_model][worst] / n[worst])} nats per token, "
        f"against {num(test.logp[worst] / n[worst])} under L; "
        f"{(w_tok < -20).sum()} of its tokens get less than −20 nats, none "
        f"of the first {int(np.argmax(w_tok < -20))}: after an unusual "
        "prefix the model's state derails and does not recover."
    )


def facts(L, overview: pd.DataFrame, real, models: dict, logp_m: dict, test) -> dict:
    """What the chapter states about L and its learners, by name, in the order it glues them
    (``pp_worst`` is Markdown): the real sentences scored, L's mean PP and bits per byte on
    them, L's vocabulary, L's and the main learner's mean PP on L's test sequences, and the
    sequence that dominates the worst learner's mean PP."""
    return {
        "n_real_txt": f"{len(real):,}",
        "pp_L_real": num(overview["mean PP on real text (Table 5)"][0]),
        "bpb_L_real": f"{overview['bits per byte on real text'][0]:.3f}",
        "L_vocab": f"{L.vocab_size:,}",
        "pp_L": f"{overview['mean PP (Eq. 1)'][0]:.2f}",
        "pp_main": f"{overview['mean PP (Eq. 1)'][1]:.2f}",
        "pp_worst": Prose(worst_sequence(models, logp_m, test)),
    }
