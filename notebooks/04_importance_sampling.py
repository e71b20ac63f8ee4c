# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Importance-sampled perplexity of latent language models
#
# A *latent* language model generates a text $x$ together with a hidden structure $z$: a
# parse tree (RNNG), coreference chains (EntityNLM), links into a knowledge graph (KGLM). Its
# perplexity needs the marginal $p(x) = \sum_z p(x, z)$, a sum over exponentially many
# structures, so such models are evaluated with importance-sampled estimates of it.
# {cite:t}`logan-etal-2020-importance` ask how much those estimates depend on choices that
# papers rarely report, and claim:
#
# 1. the estimate of $p(x)$ is unbiased (their Eq. 3, a theorem that this report's unit
#    tests check on toys), and the perplexity estimated from it is a *stochastic upper
#    bound* on the true perplexity (Eq. 4);
# 2. the estimates fall monotonically as the number of samples $K$ grows, and show no sign of
#    convergence even at $K = 10^4$ (Figs. 2–3);
# 3. estimates aggregated per instance are uniformly lower than estimates aggregated over
#    the corpus (Table 1), and the two coincide for a model without latent variables;
# 4. proposals that *peek* at the text they are evaluated on give better estimates;
# 5. a proposal temperature slightly above 1 gives the best estimates; the differences
#    between proposals are not chance (Fig. 4) and their ranking holds as $K$ grows;
# 6. beam marginalisation over the top-$k$ structures gives strict upper bounds, close to
#    importance sampling only where the latent space is small (Table 2).
#
# Their models have no tractable marginal, so the paper could only watch the estimates move
# as $K$ grew (a week on 15 GPUs). This chapter builds latent language models whose
# marginal is **exact**: every estimate below is compared with the true perplexity, so the
# bias, the variance and the coverage of each practice are measured, not guessed. The
# headline model is a mixture of this report's language models whose component switches
# from token to token by a hidden Markov chain; a second part makes the tokenization the
# latent variable of real subword models, where the exact marginal is a sum over
# segmentations.

# %% tags=["parameters"]
corpus = "enwiki"  # the corpus whose test split is evaluated
size = "cpu"  # size of the self-trained models: "cpu" or "gpu"
device = "cpu"  # "cpu", "cuda" or "auto" (the tokenization models)
components = ["wiki/transformer-word", "wiki/kn3-word"]  # + a cache
cache_mu = 100.0  # prior weight of the document cache, in tokens
em_iterations = 30  # Baum-Welch iterations on the valid split
stickiness = 0.9  # rho of the sticky variant: rho I + (1 - rho) A
temperatures = [0.5, 0.9, 1.0, 1.1, 2.0, 5.0]  # the paper's sweep
peek_horizons = [0, 1, 2, 4]  # tokens a proposal reads ahead
n_runs = 50  # independent runs per proposal (Table 1, Fig. 4)
k_runs = 100  # draws per sentence in each run
n_curve_sentences = 400  # test sentences on the curves in K (0: all)
k_max = 10000  # draws per sentence on those curves
beam_sizes = [1, 10, 100]  # k of the beam bounds (Table 2)
kglm_samples_per_batch = 1  # the public KGLM code's default
n_boot = 1000  # bootstrap resamples of test articles
# models whose segmentations of single words are summed exactly
tokenization_models = ["wiki/transformer-bpe8k", "smollm2-135m"]
n_words = 12  # test-split words whose segmentations are summed
word_letters = [6, 9]  # letters of those words, at least and at most
max_segmentations = 512  # enumeration limit per word
n_is = 128  # importance samples per word and proposal
n_ancestral = 1000  # unconstrained samples: the non-peeking proposal
sentence_models = ["wiki/transformer-bpe8k"]  # on whole sentences
n_sentences_tokenization = 10  # test sentences for those models
max_sentence_bytes = 80  # the longest of those sentences, in bytes
k_reference = 1024  # draws of the reference estimate per sentence
seed = 0  # seeds the draws, the subsets and the bootstrap

# %% tags=["remove-cell"]
import re
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from IPython.display import Markdown
from myst_nb import glue
from scipy import stats as ss
from scipy.special import logsumexp

from lmnotes import claims as lmclaims
from lmnotes import components as CP
from lmnotes import corpus as lmcorpus
from lmnotes import importance as I
from lmnotes import latent as L
from lmnotes import marginal, memo, models, plots, stats, tables, units
from lmnotes import switch_runs as SR
from lmnotes.progress import note

plots.use_style()
Z95 = ss.norm.ppf(0.975)


def glue_md(name, text, display=False):
    """Glue a sentence for {glue:md}, as Markdown."""
    glue(name, Markdown(text), display=display)

# %% [markdown]
# ## Importance sampling in four equations
#
# Perplexity is the exponentiated average negative log-probability per token of a corpus
# $x_C$ of $T$ tokens (the paper's Eq. 1; every instance here ends with its end-of-sequence
# token, which counts). With a latent $z$ the marginal is estimated by drawing
# $z_1, \dots, z_K$ from a *proposal* $q(z \mid x)$ and averaging the importance weights
# (Eqs. 2–3),
#
# $$\hat p(x) = \frac1K \sum_{k=1}^K w_k, \qquad w_k = \frac{p(x, z_k)}{q(z_k \mid x)},
#   \qquad \mathbb{E}_q\big[\hat p(x)\big] = p(x),$$
#
# unbiased wherever $q > 0$ on the support of $p(z \mid x)$. By Jensen's inequality the
# logarithm is biased low, $\mathbb{E} \log \hat p(x) \le \log p(x)$ (Eq. 4): the estimated
# perplexity is too high *on average*, a stochastic upper bound. Over a corpus of instances
# $x_1, \dots, x_N$ the estimate can be formed per instance (Eq. 5) or over the corpus
# (Eq. 6), draw $k$ of every instance making one corpus-level draw:
#
# $$\log \hat p_I = \sum_{n=1}^N \log \frac1K \sum_k w_{nk}, \qquad
#   \log \hat p_C = \log \frac1K \sum_k \prod_{n=1}^N w_{nk}.$$
#
# **Why instance level is better, as a theorem.** Shuffle the draws of each instance
# independently, $\sigma_n$ a uniform permutation of $1..K$, and average $\hat p_C$ over the
# shuffles: the product of independent uniform picks averages to the product of the means,
# $\mathbb{E}_\sigma\big[\tfrac1K \sum_k \prod_n w_{n\sigma_n(k)}\big] = \prod_n
# \tfrac1K\sum_k w_{nk} = \hat p_I$. So $\hat p_I$ is $\hat p_C$ Rao–Blackwellised over the
# arbitrary pairing of draws across instances: both are unbiased for $p(x_C)$,
# $\operatorname{Var} \hat p_I \le \operatorname{Var} \hat p_C$, and by the conditional Jensen
# inequality $\mathbb{E} \log \hat p_C \le \mathbb{E} \log \hat p_I \le \log p(x_C)$. (A unit
# test checks the identity by enumerating every pairing.) The corpus-level estimate is a
# $K$-sample estimate of a probability over $T$ tokens; its weights degenerate.
#
# **How large the bias is.** To second order (the delta method; {cite:t}`maddison-etal-2017-filtering`,
# {cite:t}`nowozin-2018-debiasing`),
#
# $$\mathbb{E} \log \hat p_K(x) \approx \log p(x) - \frac{\chi^2\big(p(z \mid x) \,\|\, q\big)}{2K},$$
#
# where $\chi^2 = \operatorname{Var}_q(w)/p(x)^2$ is the $\chi^2$ divergence of the proposal from
# the posterior, and about $K \approx e^{\mathrm{KL}(p(z \mid x) \| q)}$ draws are needed
# before the estimate becomes accurate at all ({cite:t}`chatterjee-diaconis-2018-sample`). Both
# divergences can be computed exactly for the model below.

# %% [markdown]
# ## A latent language model with an exact marginal
#
# The **switch-LM** mixes $C = 3$ language models over one vocabulary (the corpus's words,
# closed at two occurrences, with `<unk>`), a hidden state $z_t$ choosing which one emits
# token $t$:
#
# $$p(x, z) = \pi_{z_1} e_1(z_1) \prod_{t=2}^T A_{z_{t-1} z_t} e_t(z_t), \qquad
#   e_t(k) = p_k(x_t \mid x_{<t}).$$
#
# The components are this report's word Transformer (a "vocabulary" state), its Kneser–Ney
# word trigram (a local one) and a document cache that repeats words seen earlier in the same
# article (a "copy" state, the role of KGLM's and EntityNLM's mention states; Kuhn & De Mori's
# cache with a Dirichlet prior on the training unigram,
# $p_c(w) = (c(w) + \mu\, p_{\text{uni}}(w)) / (n + \mu)$). The components do not read $z$,
# which is what makes the model tractable: the forward algorithm sums the $3^T$ paths
# exactly, and the posterior $p(z \mid x)$ is itself a Markov chain ({cite:t}`rabiner-1989-tutorial`). $\pi$ and $A$ are
# fitted by Baum–Welch on the validation split, the emissions fixed. A second, **sticky**
# variant $A_\rho = \rho I + (1 - \rho) A$ switches less often, so that its posterior at
# token $t$ depends more on the tokens after $t$.

# %% tags=["hide-input"]
data = lmcorpus.load(corpus)
lms = [models.load(name, size=size) for name in components]
log_uni = CP.unigram(lms[0], data["train"].sentences)
em = {}
for split in ("valid", "test"):
    per_sentence, _ = CP.emissions(lms, data[split].sentences,
                                   data[split].article_ids(), log_uni, cache_mu)
    em[split] = L.Emissions.stack(per_sentence)
test = em["test"]
article = data["test"].article_ids()
n_tokens = test.lengths.astype(float)
T, N_test = n_tokens.sum(), len(n_tokens)
fitted = L.SwitchLM.fit(em["valid"], em_iterations)
switch = {"fitted": fitted, "sticky": fitted.sticky(stickiness)}
logp = {m: s.logprob(test) for m, s in switch.items()}
short_names = {"wiki/transformer-word": "Transformer (word)",
               "wiki/kn3-word": "Kneser–Ney trigram (word)"}
names = [short_names.get(c, c) for c in components] + ["document cache"]
ppl_rows = {}
mask = L.Emissions.mask(test.lengths, test.shape[1])
for k, name in enumerate(names):
    lp = (test.log_e[..., k] * mask).sum(1)
    ppl_rows[name] = units.bootstrap_rate(lp, n_tokens, "perplexity", n_boot,
                                          seed, groups=article)
for m in switch:
    ppl_rows[f"switch-LM, {m}"] = units.bootstrap_rate(
        logp[m], n_tokens, "perplexity", n_boot, seed, groups=article)
ppl_table = pd.DataFrame({"perplexity / word": ppl_rows})
ppl_table.index.name = "model"
tables.show(ppl_table, "Test perplexity per word (end-of-sentence included) of "
            "each component alone and of the two switch-LMs, exact (95% "
            "interval over test articles underneath)")

# %% tags=["hide-input"]
chain_table = pd.DataFrame(
    np.column_stack([fitted.pi, fitted.A]), index=names,
    columns=["start"] + [f"to {n}" for n in names])
chain_table.index.name = "from"
tables.show(chain_table, "The fitted chain: the start distribution π and the "
            "transition matrix A (rows sum to 1)", formats={c: 3 for c in chain_table})

# %% tags=["remove-cell"]
glue("n_test_sentences", len(test.lengths), display=False)
glue("n_test_tokens", int(T), display=False)
glue("n_articles", len(set(article)), display=False)
glue("memory_fitted", fitted.memory(), display=False)
glue("memory_sticky", switch["sticky"].memory(), display=False)
glue("rho", stickiness, display=False)
glue("ppl_fitted", float(ppl_rows["switch-LM, fitted"].value), display=False)
glue("ppl_sticky", float(ppl_rows["switch-LM, sticky"].value), display=False)
best_component = min(names, key=lambda n: ppl_rows[n].value)
glue("best_component", best_component, display=False)
glue("ppl_best_component", float(ppl_rows[best_component].value), display=False)

# %% [markdown]
# On the {glue:text}`n_test_sentences:,` test sentences ({glue:text}`n_test_tokens:,` tokens
# from {glue:text}`n_articles` articles) the fitted switch-LM has perplexity
# {glue:text}`ppl_fitted:.1f`, well below its best component ({glue:text}`best_component`,
# {glue:text}`ppl_best_component:.1f`): the components are good at different tokens, and the
# latent state is worth modelling. Its chain has little memory, though: the modulus of the
# second eigenvalue of $A$, which measures how fast the chain forgets its state, is
# {glue:text}`memory_fitted:.2f` (a rank-one $A$, every row the same, has 0: $z_t$ would
# ignore $z_{t-1}$, and a one-token peek would be the exact posterior). The sticky variant ($\rho$ =
# {glue:text}`rho`, perplexity {glue:text}`ppl_sticky:.1f`) has memory
# {glue:text}`memory_sticky:.2f`, and is the harder case for a proposal. Both are
# studied below, as the paper studies three models.
#
# ## The proposals
#
# Every proposal here is a Markov chain over the states, $q(z \mid x) = q_1(z_1)\prod_t
# q_t(z_t \mid z_{t-1})$, and differs in what it reads of $x$:
#
# - **no peeking** ($h = 0$): $q_t(j \mid i) = A_{ij}$, the model's own prior, i.e. ancestral
#   sampling of $z$ (the paper's non-peeking proposal);
# - **peek $h$**: $q_t(j \mid i) \propto A_{ij}\, e_t(j)\, \beta^{(h)}_t(j)$, which reads the
#   next $h$ tokens ($\beta^{(1)} = 1$, and $\beta^{(h)}_t(j) = \sum_k A_{jk} e_{t+1}(k)
#   \beta^{(h-1)}_{t+1}(k)$);
# - **mean-field**: $q_t(j \mid i) = p(z_t = j \mid x)$, the exact posterior marginal: it reads
#   all of $x$ but forgets the previous state, an imperfect peeker;
# - **exact posterior** ($h = \infty$): $q = p(z \mid x)$, every weight equals $p(x)$, zero
#   variance;
# - **temperature** $\tau$: $q^\tau_t \propto q_t^{1/\tau}$, row by row, applied to peek 1 (the
#   weights divide by the tempered $q$).
#
# The paper's peeking proposals are discriminative models (a parser, taggers) that read the
# whole text but only approximate the posterior; here no proposal is both, so the family
# brackets them: peek $h$ reads a little of the future exactly, mean-field all of it
# approximately. Peek 1 stands in for the paper's peeking proposal in the temperature sweep
# (the weakest peeker, so that the temperature has something to correct).
#
# For Markov proposals both divergences from the posterior are exact: KL sums over the
# steps, and $1 + \chi^2 = \sum_z p(z \mid x)^2 / q(z)$ is a forward recursion.

# %% tags=["hide-input"]
props = {m: SR.proposals(s, test, peek_horizons, temperatures)
         for m, s in switch.items()}
order = [SR.peek_label(h) for h in peek_horizons] + [SR.MEAN_FIELD] + [
    SR.peek_label(1, t) for t in temperatures if t != 1] + [SR.EXACT]
kl, chi = {}, {}
for m in switch:
    for name in order:
        kl[m, name], chi[m, name] = L.divergence(props[m][SR.EXACT],
                                                 props[m][name])
beyond = {k: float(np.mean(v > np.log(k_max))) for k, v in kl.items()}
div_table = pd.DataFrame({
    **{f"KL, {m}": [kl[m, n].mean() for n in order] for m in switch},
    **{f"exp(KL) > {k_max:,}, {m}": [beyond[m, n] for n in order]
       for m in switch}}, index=pd.Index(order, name="proposal"))
tables.show(div_table, "How far each proposal is from the posterior: mean "
            "KL(p(z|x) ‖ q) per sentence (nats), and the share of sentences "
            f"that need more than K = {k_max:,} draws by exp(KL)",
            formats={**{c: tables.significant(3) for c in div_table},
                     **{c: "{:.1%}" for c in div_table if "exp" in c}})

# %% tags=["remove-cell"]
glue("kl_nopeek_sticky", float(kl["sticky", SR.NO_PEEKING].mean()), display=False)
glue("kl_corpus_nopeek_sticky", float(kl["sticky", SR.NO_PEEKING].sum()), display=False)
glue("kl_peek1_fitted", float(kl["fitted", "peek 1"].mean()), display=False)
glue("kl_peek1_sticky", float(kl["sticky", "peek 1"].mean()), display=False)
glue("kl_mf_sticky", float(kl["sticky", SR.MEAN_FIELD].mean()), display=False)
glue("max_kl_nopeek", float(kl["sticky", SR.NO_PEEKING].max()), display=False)
for m in switch:
    for key, name in [("nopeek", SR.NO_PEEKING), ("peek1", "peek 1")]:
        glue(f"median_k_{key}_{m}", float(np.exp(np.median(kl[m, name]))),
             display=False)

# %% [markdown]
# A sentence needs about $e^{\mathrm{KL}}$ draws. For a median sentence, peeking one token
# ahead cuts them from {glue:text}`median_k_nopeek_fitted:,.0f` to
# {glue:text}`median_k_peek1_fitted:.2f` (fitted) and from
# {glue:text}`median_k_nopeek_sticky:,.0f` to {glue:text}`median_k_peek1_sticky:.1f`
# (sticky). But the mean KL matters more than the median: without peeking it is
# {glue:text}`kl_nopeek_sticky:.1f` nats per sentence on the sticky model (up to
# {glue:text}`max_kl_nopeek:.0f` for the sentence with the largest), with a one-token peek
# {glue:text}`kl_peek1_sticky:.2f` (sticky) and {glue:text}`kl_peek1_fitted:.2f` (fitted),
# further horizons less still; the sentences in the tail, beyond $e^{\mathrm{KL}} > K$, are
# the ones whose estimates cannot have converged;
# the mean-field proposal reads everything yet keeps {glue:text}`kl_mf_sticky:.2f` nats,
# because it ignores the previous state the sticky chain depends on. A corpus-level
# estimate faces the corpus's KL, the sum over sentences:
# {glue:text}`kl_corpus_nopeek_sticky:,.0f` nats for the non-peeking proposal, so
# $e^{\mathrm{KL}}$ is beyond any number of draws.
#
# ## Estimates against the number of samples (the paper's Figs. 2–3)
#
# One run of $K$ = {glue:text}`k_max_used:,` draws for each of
# {glue:text}`n_curve_used:,` test sentences, and the instance-level perplexity from its
# first $K$ draws, as the paper plots it; the exact perplexity of the same sentences is the
# black line.

# %% tags=["hide-input"]
sub = data["test"].sentence_sample(n_curve_sentences, seed)
em_sub, art_sub = test.subset(sub), article[sub]
T_sub = em_sub.lengths.sum()
sizes = np.unique(np.round(np.logspace(0, np.log10(k_max), 41)).astype(int))
curve_names = [SR.NO_PEEKING, "peek 1", "peek 2", SR.MEAN_FIELD] + [
    SR.peek_label(1, t) for t in temperatures if t != 1]
curves, expect, khat, kglm, err_at_max = {}, {}, {}, {}, {}
for m, s in switch.items():
    lp_sub = logp[m][sub]
    for i, name in enumerate(curve_names):
        note(f"curve {m}, {name}: {len(sub):,} sentences x {k_max:,} draws")
        q = props[m][name].subset(sub)
        err, logw = SR.curve(s, em_sub, q, sizes, seed=seed * 1000 + i)
        curves[m, name] = err.sum(1)  # nats over the subset, per K
        err_at_max[m, name] = err[-1]  # per sentence, K = k_max
        expect[m, name] = SR.expected(logw, lp_sub, [1, 10, 100, 1000])
        with np.errstate(divide="ignore", invalid="ignore"):
            khat[m, name] = I.pareto_k(logw)
        by_article = np.stack([logw[art_sub == a].sum(0)
                               for a in np.unique(art_sub)])
        b = kglm_samples_per_batch
        kglm[m, name] = {
            unit: (I.kglm_estimate(w, b).sum(), I.log_mean(w).sum())
            for unit, w in [("sentences", logw), ("articles", by_article)]}
        del logw, by_article
truth_sub = {m: logp[m][sub].sum() for m in switch}


def ppl_of(m, err_nats, tokens=None):
    """Perplexity from an error in nats against model m's exact log p."""
    if tokens is None:
        return np.exp(-(truth_sub[m] + err_nats) / T_sub)
    return np.exp(-(logp[m].sum() + err_nats) / tokens)


fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.4), sharey=False)
palette = dict(zip(curve_names[:4], sns.color_palette("colorblind", 4)))
for ax, m in zip(axes, switch):
    for name in curve_names[:4]:
        ax.plot(sizes, ppl_of(m, curves[m, name]), color=palette[name],
                label=name)
    ax.axhline(ppl_of(m, 0.0), color=plots.REFERENCE_COLOR, lw=1,
               label="exact perplexity")
    ax.set(title=f"{m} switch-LM")
    plots.plain_log(ax, "x", [1, 10, 100, 1000, 10000])
plots.figure_legend(fig, axes, ncol=3)
fig.supxlabel("samples per sentence K")
fig.supylabel("instance-level perplexity")
glue("fig_curves", fig, display=False)
plt.close(fig)

# %% tags=["remove-cell"]
# the gap left at K = k_max per token, as a relative perplexity, with a 95%
# interval over the articles of the subset (the sentences' errors are
# independent draws; resampling articles is the conservative unit)
CONVERGED = 0.001  # a gap below 0.1 % of the perplexity counts as converged
W_sub = stats.bootstrap_weights(len(sub), n_boot, np.random.default_rng(seed),
                                groups=art_sub)
gap_interval = {}
for m in switch:
    for n in curve_names:
        e = -err_at_max[m, n]  # log p - log p^, per sentence
        tok_sub = em_sub.lengths.astype(float)
        reps = np.expm1((W_sub @ e) / (W_sub @ tok_sub))
        gap_interval[m, n] = stats.interval(np.expm1(e.sum() / T_sub), reps)
glue("k_max_used", int(k_max), display=False)
glue("n_curve_used", len(sub), display=False)
gap = {(m, n): ppl_of(m, curves[m, n][-1]) / ppl_of(m, 0.0) - 1
       for m in switch for n in curve_names}
glue("gap_nopeek_sticky_pct", float(100 * gap["sticky", SR.NO_PEEKING]), display=False)
glue("gap_nopeek_fitted_pct", float(100 * gap["fitted", SR.NO_PEEKING]), display=False)
glue("gap_peek1_sticky_pct", float(100 * gap["sticky", "peek 1"]), display=False)
glue("gap_peek2_fitted_pct", tables.significant(2)(100 * gap["fitted", "peek 2"]),
     display=False)
# which proposals have sentences that need more than k_max draws, by exp(KL)?
tail_sub = {(m, n): float(np.mean(kl[m, n][sub] > np.log(k_max)))
            for m in switch for n in curve_names[:4]}
unconverged = {k for k in tail_sub if gap_interval[k].low > 0}
with_tail = {k for k, v in tail_sub.items() if v > 0}
agree = unconverged == with_tail
glue_md("tail_sentence", (
    "The proposals whose estimate is still above the truth beyond its interval "
    "are exactly those with sentences beyond that many draws"
    if agree else "The match is not exact: " + "; ".join(
        f"{n}, {m}: {100 * tail_sub[m, n]:.1f} % of sentences beyond, "
        f"gap {'resolved' if (m, n) in unconverged else 'not resolved'}"
        for m, n in sorted(unconverged ^ with_tail))), display=False)

# %% [markdown]
# ```{glue:figure} fig_curves
# :name: fig-curves
#
# Instance-level perplexity estimated from the first $K$ draws of one run per
# proposal ($K$ on a log scale), against the exact perplexity of the same sentences. The
# curves fall towards the truth, on average from above; how far each still is at
# the largest $K$ depends on the proposal's divergence from the posterior.
# ```
#
# At $K$ = {glue:text}`k_max_used:,` the non-peeking estimate is still
# {glue:text}`gap_nopeek_sticky_pct:.1f` % above the exact perplexity of the sticky model
# ({glue:text}`gap_nopeek_fitted_pct:.1f` % for the fitted one): no convergence, as in the
# paper. Peeking one token ahead leaves {glue:text}`gap_peek1_sticky_pct:.2f` % (sticky), and
# peeking two ahead on the fitted model {glue:text}`gap_peek2_fitted_pct` %: the same
# estimator does converge once the proposal is close to the posterior. What predicts it is
# the tail of the KL: a sentence needs about $e^{\mathrm{KL}}$ draws, and the estimate over
# the sentences cannot converge while some need more than the $K$ drawn.
# {glue:md}`tail_sentence`. "No convergence by $10^4$" is a property of the proposal, not of
# importance sampling.
#
# **Monotone in expectation, not run by run.** {cite:t}`burda-etal-2016-iwae` prove that
# $\mathbb{E} \log \hat p_K$ rises with $K$. The table below estimates
# $\mathbb{E} \log \hat p_K - \log p$ from disjoint runs of the same draws (all of them cut
# into runs of $K = 1$, of $K = 10$, …), summed over the sentences. A single running curve, as the
# figure draws, can turn up: after a heavy weight has pulled the perplexity down, the light
# draws that follow dilute it.

# %% tags=["hide-input"]
mono_rows = {}
for m in switch:
    for name in curve_names[:4]:
        e = expect[m, name]
        mono_rows[m, name] = {
            f"K = {K}": stats.Estimate(r["mean"], r["mean"] - Z95 * r["se"],
                                       r["mean"] + Z95 * r["se"])
            for K, r in e.iterrows()}
mono = pd.DataFrame(mono_rows).T
mono.index.names = ["model", "proposal"]
tables.show(mono, "E[log p̂_K] − log p summed over the sentences (nats), from "
            "disjoint runs of K draws; 95% interval over the runs underneath",
            formats={c: tables.significant(3) for c in mono})

# %% tags=["remove-cell"]
def predicted_bias(m, name, K, rows=slice(None)):
    """The delta method's bias of the summed log-estimate with K draws."""
    return I.delta_bias(chi[m, name][rows], K).sum()


# a case tests a claim only where the effect the delta method predicts is
# larger than the interval's half-width (else the runs cannot resolve it)
rises, drops, mono_cases, mono_unresolved = 0, 0, 0, 0
falls_single = 0
for m in switch:
    for name in curve_names[:4]:
        e = expect[m, name]
        Ks = e.index.to_numpy()
        diffs = np.diff(e["mean"].to_numpy())
        half = Z95 * np.hypot(e["se"].to_numpy()[1:], e["se"].to_numpy()[:-1])
        effect = np.array([predicted_bias(m, name, b, sub)
                           - predicted_bias(m, name, a, sub)
                           for a, b in zip(Ks, Ks[1:])])
        falls_single += int(np.sum(np.diff(curves[m, name]) < 0))
        drops += bool(np.any(diffs < -half))  # a fall is evidence either way
        testable = ~(effect <= half)  # NaN: chi^2 overflowed, the effect is huge
        if not testable.any():
            mono_unresolved += 1
            continue
        mono_cases += 1
        rises += bool(np.all(diffs[testable] > half[testable]))
glue("n_mono_rises", rises, display=False)
glue("n_mono_cases", mono_cases, display=False)
glue("n_mono_unresolved", mono_unresolved, display=False)
glue("n_single_drops", falls_single, display=False)
n_curve_steps = len(switch) * 4 * (len(sizes) - 1)
glue("n_curve_steps", n_curve_steps, display=False)

# %% [markdown]
# In {glue:text}`n_mono_rises` of {glue:text}`n_mono_cases` model–proposal pairs the
# expected log-estimate rises from each $K$ to the next beyond its interval, at every step
# where the rise that the delta method predicts exceeds the interval; in
# {glue:text}`n_mono_unresolved` more the proposal is so close to the posterior that the rise
# the delta method predicts is smaller than the interval, and the runs cannot resolve it.
# A single run is another matter: the running curves of the figure turn up (the perplexity
# estimate rises from one $K$ to the next) {glue:text}`n_single_drops` times in
# {glue:text}`n_curve_steps` steps. The paper's "monotonically decreasing in all settings"
# holds for the expectation, the quantity its Eq. 4 is about, not for a run.
#
# ## Instance-level against corpus-level estimates (the paper's Table 1)
#
# Every proposal, {glue:text}`n_runs_used` independent runs of $K$ =
# {glue:text}`k_runs_used` draws for each of the {glue:text}`n_test_sentences:,` test
# sentences, aggregated per sentence (Eq. 5), over the corpus (Eq. 6), and per article
# (the sentences of an article as one instance, in between). Each cell is the perplexity
# from the mean log-estimate over the runs; underneath, the range that 95% of single runs fall
# in.

# %% tags=["hide-input"]
run_names = [SR.NO_PEEKING] + [SR.peek_label(1, t) for t in temperatures] + [
    SR.peek_label(h) for h in peek_horizons if h > 1] + [SR.MEAN_FIELD, SR.EXACT]
runs = {}
for m, s in switch.items():
    for i, name in enumerate(run_names):
        note(f"runs {m}, {name}: {n_runs} x {k_runs} draws per sentence")
        runs[m, name] = SR.repeated(s, test, props[m][name], n_runs, k_runs,
                                    seed=seed * 1000 + 500 + i, groups=article)
# a model without a latent variable: the Transformer alone, C = 1
plain = L.SwitchLM(np.ones(1), np.ones((1, 1)))
single = test.component(0)
plain_runs = SR.repeated(plain, single, L.lookahead(plain, single, 0), n_runs,
                         k_runs, seed=seed, groups=article)


def run_estimate(m, err):
    """The perplexity of the mean log-estimate, with the 2.5-97.5% range of runs."""
    lo, hi = np.quantile(err, [0.975, 0.025])  # a higher log p: a lower perplexity
    return stats.Estimate(ppl_of(m, err.mean(), T), ppl_of(m, lo, T),
                          ppl_of(m, hi, T))


levels = ["instance", "corpus", "article"]
table1 = {}
for level in levels:
    t1 = pd.DataFrame({m: {n: run_estimate(m, runs[m, n][level])
                           for n in run_names} for m in switch})
    t1.loc["exact (no sampling)"] = [ppl_of(m, 0.0, T) for m in switch]
    t1.index.name = "proposal"
    table1[level] = t1
for level in levels:
    display(tables.show(table1[level], f"{level.capitalize()}-level perplexity "
                        f"estimates, K = {k_runs} (the range of 95% of runs "
                        "underneath)",
                        formats={m: tables.significant(4) for m in switch}))
nonlatent = pd.DataFrame({
    "instance level": [float(np.abs(plain_runs["instance"]).max())],
    "corpus level": [float(np.abs(plain_runs["corpus"]).max())],
    "instance − corpus": [float(np.abs(plain_runs["instance"]
                                       - plain_runs["corpus"]).max())]},
    index=pd.Index([plots.label(components[0])], name="non-latent LM"))
tables.show(nonlatent, "A model without a latent variable: the largest "
            "|error| over the runs (nats)", formats={c: tables.significant(2) for c in nonlatent})

# %% tags=["remove-cell"]
glue("n_runs_used", n_runs, display=False)
glue("k_runs_used", k_runs, display=False)
latent_names = [n for n in run_names if n != SR.EXACT]
gaps_ic = {(m, n): (runs[m, n]["instance"] - runs[m, n]["corpus"]) / T
           for m in switch for n in latent_names}
ic_for, ic_against, ic_unresolved = 0, 0, 0
for (m, n), g in gaps_ic.items():
    half = Z95 * g.std(ddof=1) / np.sqrt(len(g))
    # the delta method for both: the corpus-level estimate is one instance with
    # 1 + chi^2_C = prod_n (1 + chi^2_n)
    effect = (predicted_bias(m, n, k_runs)
              - I.delta_bias(chi[m, n].sum(), k_runs)) / T
    if effect <= half:  # the predicted gap is below the runs' resolution
        ic_unresolved += 1
        continue
    ic_for += g.mean() - half > 0
    ic_against += g.mean() + half < 0
ic_runs = np.mean([np.mean(g > 0) for g in gaps_ic.values()])
glue("n_ic_for", int(ic_for), display=False)
glue("n_ic_cases", len(gaps_ic) - ic_unresolved, display=False)
glue("n_ic_unresolved", ic_unresolved, display=False)
glue("ic_runs_pct", float(100 * ic_runs), display=False)
ppl_i = {k: ppl_of(k[0], runs[k]["instance"].mean(), T) for k in gaps_ic}
ppl_c = {k: ppl_of(k[0], runs[k]["corpus"].mean(), T) for k in gaps_ic}
worst = max(gaps_ic, key=lambda k: ppl_c[k] - ppl_i[k])
glue("ic_worst", f"{worst[1]} on the {worst[0]} model", display=False)
glue("ic_worst_c", float(ppl_c[worst]), display=False)
glue("ic_worst_i", float(ppl_i[worst]), display=False)
ess = np.concatenate([runs[k]["corpus ESS"].to_numpy() for k in gaps_ic])
glue("corpus_ess_median", float(np.median(ess)), display=False)

# %% [markdown]
# Instance level is lower (better) than corpus level in {glue:text}`n_ic_for` of
# {glue:text}`n_ic_cases` model–proposal pairs beyond the runs' interval, and in
# {glue:text}`ic_runs_pct:.0f` % of single runs; in {glue:text}`n_ic_unresolved` more the
# proposal is so close to the posterior that the gap the delta method predicts (treating the
# corpus as one instance, $1 + \chi^2_C = \prod_n (1 + \chi^2_n)$) is below the runs'
# resolution. The gap can be large: for
# {glue:text}`ic_worst` the corpus-level estimate is {glue:text}`ic_worst_c:.1f` and the
# instance-level one {glue:text}`ic_worst_i:.1f`. The corpus-level weights degenerate,
# because the corpus's KL is the sum of its sentences' (the theorem above orders the
# variances, this says by how much): over all runs, the median effective sample size of the
# $K$ =
# {glue:text}`k_runs_used` corpus-level weights is {glue:text}`corpus_ess_median:.2f`. For the
# Transformer alone every weight equals $p(x)$ and the two aggregations agree to the last
# bit, as the paper says.
#
# ## Densities of repeated estimates (the paper's Fig. 4)

# %% tags=["hide-input"]
density_names = [SR.NO_PEEKING] + [SR.peek_label(1, t) for t in temperatures]
tau_colors = dict(zip(density_names, sns.color_palette("colorblind",
                                                       len(density_names))))
fig, axes = plt.subplots(2, 1, figsize=(plots.COLUMN, 5.0), sharey=True)
for ax, m in zip(axes, switch):
    est = pd.DataFrame({name: ppl_of(m, runs[m, name]["instance"].to_numpy(), T)
                        for name in density_names}).melt(
        var_name="proposal", value_name="estimate")
    sns.violinplot(data=est, x="estimate", y="proposal", hue="proposal",
                   palette=tau_colors, ax=ax, inner="point", density_norm="width",
                   cut=0, linewidth=0.6, log_scale=True, legend=False)
    ax.axvline(ppl_of(m, 0.0, T), color=plots.REFERENCE_COLOR, lw=1,
               label="exact perplexity")
    ax.set(title=f"{m} switch-LM", xlabel="", ylabel="")
    plots.plain_log(ax, "x", [160, 170, 180, 200, 220, 250, 300, 400, 500])
    ax.set_xlim(min(est["estimate"].min(), ppl_of(m, 0.0, T)) / 1.01,
                est["estimate"].max() * 1.01)
plots.figure_legend(fig, axes, ncol=1)
fig.supxlabel(f"instance-level perplexity estimate, K = {k_runs} (log scale)")
glue("fig_densities", fig, display=False)
plt.close(fig)


def overlap(a, b, grid=2048):
    """The overlapping coefficient of two densities (Gaussian kernels)."""
    if np.ptp(a) == 0 or np.ptp(b) == 0:
        return float(np.isclose(a.mean(), b.mean()))
    xs = np.linspace(min(a.min(), b.min()), max(a.max(), b.max()), grid)
    fa, fb = ss.gaussian_kde(a)(xs), ss.gaussian_kde(b)(xs)
    return float(np.minimum(fa, fb).sum() * (xs[1] - xs[0]))


sep_rows = []
for m in switch:
    ranked = sorted(density_names, key=lambda n: runs[m, n]["instance"].mean(),
                    reverse=True)
    for a, b in zip(ranked, ranked[1:]):
        x, y = runs[m, a]["instance"] / T, runs[m, b]["instance"] / T
        t_res = ss.ttest_ind(x, y, equal_var=False)
        sep_rows.append({"model": m, "better": a, "next": b,
                         "overlap": overlap(x.to_numpy(), y.to_numpy()),
                         "p-value (Welch)": tables.pvalue(t_res.pvalue),
                         "_p": t_res.pvalue})
separation = pd.DataFrame(sep_rows)

# %% [markdown]
# ```{glue:figure} fig_densities
# :name: fig-densities
#
# Densities of {glue:text}`n_runs_used` instance-level estimates with $K$ =
# {glue:text}`k_runs_used` (a violin per proposal, each run a point) for the peek-1
# proposal at each temperature and the non-peeking proposal (log scale), and the exact
# perplexity.
# ```
#
# Neighbouring proposals in the order of their mean estimates, with the overlap of their
# densities (1: identical) and a Welch test of equal means over the runs:

# %% tags=["hide-input"]
tables.show(separation.drop(columns="_p"), "How far apart neighbouring "
            "proposals' estimates are", index=False, formats={"overlap": 2})

# %% tags=["remove-cell"]
n_sep = int((separation["_p"] < 0.05).sum())
glue("n_sep", n_sep, display=False)
glue("n_sep_pairs", len(separation), display=False)
below = {(m, n): float(np.mean(runs[m, n]["instance"] > 0))
         for m in switch for n in density_names}
straddle = {k: v for k, v in below.items() if v > 0}
glue_md("straddle_sentence", (
    "every run lies above it" if not straddle else
    "the worse proposals' runs lie above it, while the best straddle it: "
    + "; ".join(f"{100 * v:.0f} % of the runs of {n} ({m}) fall below"
                for (m, n), v in straddle.items())), display=False)

# %% [markdown]
# {glue:text}`n_sep` of {glue:text}`n_sep_pairs` neighbouring pairs differ beyond chance
# ($p < 0.05$). The figure shows the exact perplexity as well, which the paper could not
# draw: {glue:md}`straddle_sentence`.
#
# ## Temperature
#
# Which temperature is best, and why? The exact $\chi^2$ and KL of the tempered peek-1
# proposal from the posterior, over a fine grid of $\tau$, against the measured bias of the
# runs at the paper's six temperatures:

# %% tags=["hide-input"]
tau_grid = np.unique(np.concatenate([np.geomspace(min(temperatures),
                                                  max(temperatures), 25),
                                     temperatures]))
fig, axes = plt.subplots(1, 2, figsize=(plots.COLUMN, 3.2))
tau_best = {}
for m, s in switch.items():
    post, base = props[m][SR.EXACT], props[m]["peek 1"]
    kls, chis = [], []
    for tau in tau_grid:
        k_, c_ = L.divergence(post, L.temper(base, tau))
        kls.append(k_.mean())
        chis.append(c_.mean())
    tau_best[m] = {"KL": tau_grid[int(np.argmin(kls))],
                   "chi": tau_grid[int(np.argmin(chis))]}
    axes[0].plot(tau_grid, kls, color=sns.color_palette("colorblind")[
        list(switch).index(m)], label=f"{m}: KL")
    axes[0].plot(tau_grid, chis, ls="--", color=sns.color_palette(
        "colorblind")[list(switch).index(m)], label=f"{m}: log(1 + χ²)")
    meas = [runs[m, SR.peek_label(1, t)]["instance"] / len(test.lengths)
            for t in temperatures]
    axes[1].errorbar(temperatures, [x.mean() for x in meas],
                     yerr=[Z95 * x.std(ddof=1) / np.sqrt(len(x)) for x in meas],
                     marker="o", capsize=3, label=f"{m}: measured",
                     color=sns.color_palette("colorblind")[
                         list(switch).index(m)])
axes[0].set(title="divergence from the posterior", ylabel="nats per sentence")
axes[1].set(title=f"measured bias, K = {k_runs}")
axes[1].axhline(0, color=plots.REFERENCE_COLOR, lw=1)
for ax in axes:
    plots.plain_log(ax, "x", [0.5, 1, 2, 5])
plots.figure_legend(fig, axes, ncol=3)
fig.supxlabel("proposal temperature τ (peek 1)")
glue("fig_temperature", fig, display=False)
plt.close(fig)

tau_rows = {}
for m in switch:
    means = {t: runs[m, SR.peek_label(1, t)]["instance"].mean() / T
             for t in temperatures}
    ses = {t: runs[m, SR.peek_label(1, t)]["instance"].std(ddof=1) / T
           / np.sqrt(n_runs) for t in temperatures}
    best = max(means, key=means.get)
    # temperatures whose mean is not worse than the best beyond the intervals
    tied = [t for t in temperatures
            if means[best] - means[t] <= Z95 * np.hypot(ses[best], ses[t])]
    tau_rows[m] = {"best τ (runs, K = %d)" % k_runs: best,
                   "τ within the interval of the best": ", ".join(
                       f"{t:g}" for t in tied),
                   "τ minimising KL (exact)": tau_best[m]["KL"],
                   "τ minimising χ² (exact)": tau_best[m]["chi"]}
tau_table = pd.DataFrame(tau_rows).T
tau_table.index.name = "model"
tables.show(tau_table, "The best proposal temperature, measured and predicted",
            formats={c: tables.significant(2) for c in tau_table.columns
                     if "exact" in c
                     or "best τ" in c})

# %% tags=["remove-cell"]
glue_md("tau_summary", "; ".join(
    f"{m}: the runs' best τ = {r[f'best τ (runs, K = {k_runs})']:g}, the "
    f"exact KL smallest at τ = {r['τ minimising KL (exact)']:.2g}"
    for m, r in tau_rows.items()), display=False)
bias_at = {(m, t): runs[m, SR.peek_label(1, t)]["instance"].mean() / N_test
           for m in switch for t in temperatures}
glue_md("tau2_sentence", "; ".join(
    f"{m}: {tables.significant(2)(bias_at[m, 2.0])} nats per sentence at "
    f"τ = 2 against {tables.significant(2)(bias_at[m, 1.0])} at τ = 1"
    for m in switch) if 2.0 in temperatures else "", display=False)

# %% [markdown]
# {glue:md}`tau_summary`. The best temperature sits near 1, a little above it where the
# proposal is myopic about a state that persists (the sticky model), because a slightly
# flatter proposal covers the posterior's tails at little cost; farther from 1 the
# divergence grows on both sides. The paper's range reaches too far for these models:
# {glue:md}`tau2_sentence`. The paper's RNNG and EntityNLM proposals were best at $\tau = 2$
# (its Table 1); how far to flatten depends on how myopic the proposal is, which the exact
# divergence measures and a few runs estimate.
#
# ```{glue:figure} fig_temperature
# :name: fig-temperature
#
# Left: the exact mean KL and $\log(1 + \chi^2)$ of the tempered peek-1 proposal from the
# posterior per sentence, against $\tau$. Right: the measured bias of the log-estimate,
# $\mathbb{E}\log\hat p - \log p$ in nats per sentence, at the paper's temperatures (mean
# over the runs, 95% interval).
# ```
#
# ## Does the ranking of proposals hold as K grows?
#
# The paper suggests choosing the temperature with few samples. The rankings of the seven
# proposals of the density figure by their absolute error, expected at $K = 10$ (from
# disjoint runs of 10 draws) and of the single run at $K$ = {glue:text}`k_max_used:,`:

# %% tags=["hide-input"]
rank_rows = {}
kendall = {}
for m in switch:
    # |error| summed over the sentences: expected at K = 10, one run at k_max
    small = {n: abs(expect[m, n].loc[10, "mean"]) for n in density_names}
    large = {n: abs(curves[m, n][-1]) for n in density_names}
    res = ss.kendalltau([small[n] for n in density_names],
                        [large[n] for n in density_names])
    kendall[m] = res
    for n in density_names:
        rank_rows[m, n] = {
            "rank at K = 10": int(pd.Series(small).rank()[n]),
            f"rank at K = {k_max:,}": int(pd.Series(large).rank()[n])}
ranks = pd.DataFrame(rank_rows).T
ranks.index.names = ["model", "proposal"]
display(tables.show(ranks, "Ranks of the proposals by their absolute error "
                    "|log p̂ − log p| summed over the sentences (1: closest to "
                    "the truth)"))
agreement = pd.DataFrame({
    "Kendall τ": {m: r.statistic for m, r in kendall.items()},
    "p-value": {m: tables.pvalue(r.pvalue) for m, r in kendall.items()}})
agreement.index.name = "model"
tables.show(agreement, "Agreement of the two rankings", formats={"Kendall τ": 2})

# %% tags=["remove-cell"]
glue_md("kendall_sentence", "; ".join(
    f"{m}: Kendall τ = {r.statistic:.2f} (p = {tables.pvalue(r.pvalue)})"
    for m, r in kendall.items()), display=False)
moved = ranks[ranks.iloc[:, 0] != ranks.iloc[:, 1]]
glue_md("moved_sentence", "; ".join(
    f"{n} ({m}) from {a} to {b}" for (m, n), (a, b) in moved.iterrows())
    if len(moved) else "none", display=False)
ends = []
for m in switch:
    r = ranks.loc[m]
    first, last = r.iloc[:, 0].idxmin(), r.iloc[:, 0].idxmax()
    ends.append(f"on the {m} model the best at K = 10 ({first}) ranks "
                f"{r.loc[first].iloc[1]} at K = {k_max:,}, the worst ({last}) "
                f"{r.loc[last].iloc[1]}")
glue_md("ends_sentence", "; ".join(ends), display=False)

# %% [markdown]
# The rankings at $K = 10$ and at $K$ = {glue:text}`k_max_used:,`: {glue:md}`kendall_sentence`. The ranks that
# change: {glue:md}`moved_sentence`. And at the ends: {glue:md}`ends_sentence`. Proposals
# whose errors are close swap places; a few draws tell a good proposal from a bad one, not
# the best from the next best.

# %% [markdown]
# ## Beam marginalisation (the paper's Table 2)
#
# Instead of sampling, sum $p(x, z)$ over the $k$ most probable paths that a beam search
# under the proposal $q$ (peek 1, as the paper's beam searches its proposal) finds; the sum
# is a certain lower bound on $p(x)$, so the perplexity it gives is a certain upper bound.
# Against it, the exact $k$ best paths under $p(x, z)$ (list Viterbi), the best any
# $k$-path bound can do.

# %% tags=["hide-input"]
beam_rows, share, best_paths = {}, {}, {}
for m, s in switch.items():
    for k in beam_sizes:
        found = L.beam(s, test, props[m]["peek 1"], k)
        best = best_paths[m, k] = L.kbest(s, test, k)
        beam_rows[f"k = {k}"] = beam_rows.get(f"k = {k}", {})
        beam_rows[f"k = {k}"][f"beam under q, {m}"] = ppl_of(
            m, (logsumexp(found, axis=1) - logp[m]).sum(), T)
        beam_rows[f"k = {k}"][f"exact k best, {m}"] = ppl_of(
            m, (logsumexp(best, axis=1) - logp[m]).sum(), T)
        share[m, k] = np.exp(logsumexp(found, axis=1) - logp[m])
beam_table = pd.DataFrame(beam_rows).T
for m in switch:
    beam_table.loc["importance sampling, K = %d" % k_runs,
                   [f"beam under q, {m}", f"exact k best, {m}"]] = (
        ppl_of(m, runs[m, "peek 1"]["instance"].mean(), T))
    beam_table.loc["exact (all paths)",
                   [f"beam under q, {m}", f"exact k best, {m}"]] = ppl_of(
        m, 0.0, T)
beam_table.index.name = "paths summed"
tables.show(beam_table, "Perplexity bounds from the k best paths, against "
            "instance-level importance sampling (peek 1) and the truth",
            shared=True)

# %% [markdown]
# The bound tightens with $k$. At $k$ = {glue:text}`k_top` the paper's beam bound is
# {glue:text}`beam_gap_fitted:.1f` % above the exact perplexity of the fitted model and
# {glue:text}`beam_gap_sticky:.1f` % above the sticky model's, whose posterior concentrates
# on fewer paths (the latent space, $3^T$ paths for a sentence of $T$ tokens, is the same
# for both); the exact {glue:text}`k_top` best paths would give
# {glue:text}`kbest_gap_fitted:.1f` % and {glue:text}`kbest_gap_sticky:.1f` %, so beam
# search under $q$ loses little to search errors. How much of $p(x)$ the beam's
# {glue:text}`k_top` paths hold, by sentence length:

# %% tags=["hide-input"]
k_top = max(beam_sizes)
bins = [0, 10, 20, 40, np.inf]
bin_labels = ["≤ 10", "11–20", "21–40", "> 40"]
length_bin = pd.cut(test.lengths, bins, labels=bin_labels)
rng = np.random.default_rng(seed)
W = stats.bootstrap_weights(len(test.lengths), n_boot, rng, groups=article)
share_rows = {}
for m in switch:
    x = share[m, k_top]
    row = {}
    for b in bin_labels:
        inb = (length_bin == b).astype(float)
        reps = (W @ (x * inb)) / np.maximum(W @ inb, 1)
        row[b] = stats.interval(100 * x[inb > 0].mean(), 100 * reps)
    share_rows[m] = row
    lo = np.asarray(length_bin == bin_labels[0], dtype=float)
    hi = np.asarray(length_bin == bin_labels[-1], dtype=float)
    diff = (W @ (x * lo)) / (W @ lo) - (W @ (x * hi)) / (W @ hi)
    share_rows[m]["_diff"] = stats.interval(
        x[lo > 0].mean() - x[hi > 0].mean(), diff)
share_table = pd.DataFrame({m: {b: r[b] for b in bin_labels}
                            for m, r in share_rows.items()})
share_table.index.name = "tokens in the sentence"
tables.show(share_table, f"Mean share of p(x) on the {k_top} paths of the beam "
            "under q, by sentence length, % (95% interval over test articles "
            "underneath)", formats={m: 1 for m in switch}, shared=True)

# %% tags=["remove-cell"]
glue("k_top", k_top, display=False)
for m in switch:
    for kind, col in [("beam", "beam under q"), ("kbest", "exact k best")]:
        glue(f"{kind}_gap_{m}", float(100 * (beam_table.loc[
            f"k = {k_top}", f"{col}, {m}"] / ppl_of(m, 0.0, T) - 1)),
            display=False)

# %% [markdown]
# ## Beyond the paper: the bias, predicted and corrected
#
# **The delta method against the measurement.** For each proposal, the bias of the
# instance-level log-estimate measured over the runs, against $-\sum_n \chi^2_n / (2K)$ from
# the exact $\chi^2$ of each sentence, and two corrections of it: the plug-in
# $\log \hat p + \tfrac12(1/\mathrm{ESS} - 1/K)$ (the delta method with the sample's own
# $\chi^2$) and the jackknife of {cite:t}`nowozin-2018-debiasing`, whose bias is
# $O(K^{-2})$. Nats per sentence at $K$ = {glue:text}`k_runs_used`:

# %% tags=["hide-input"]
bias_names = [SR.NO_PEEKING, "peek 1", "peek 2", SR.MEAN_FIELD,
              SR.peek_label(1, max(temperatures))]
def mean_estimate(x):
    x = np.asarray(x) / N_test
    half = Z95 * x.std(ddof=1) / np.sqrt(len(x))
    return stats.Estimate(x.mean(), x.mean() - half, x.mean() + half)


bias_rows = {}
for m in switch:
    for name in bias_names:
        r = runs[m, name]
        predicted = I.delta_bias(chi[m, name], k_runs)
        bias_rows[m, name] = {
            "predicted −χ²/2K": predicted.sum() / N_test,
            "χ²/K > 1": float(np.mean(-2 * predicted > 1)),
            "measured": mean_estimate(r["instance"]),
            "plug-in": mean_estimate(r["plug-in"]),
            "jackknife": mean_estimate(r["jackknife"]),
            "runs above truth, jackknife": float(np.mean(r["jackknife"] > 0))}
bias_table = pd.DataFrame(bias_rows).T
bias_table.index.names = ["model", "proposal"]
corrected = ["measured", "plug-in", "jackknife"]
display(tables.show(
    bias_table[["predicted −χ²/2K", "measured", "χ²/K > 1"]], "Bias of the "
    "log-estimate per sentence (nats): predicted by the delta method and "
    "measured (95% interval over the runs underneath), and the share of "
    "sentences where χ²/K > 1",
    formats={"predicted −χ²/2K": tables.significant(3),
             "measured": tables.significant(2), "χ²/K > 1": "{:.1%}"}))
tables.show(bias_table[corrected[1:] + ["runs above truth, jackknife"]],
            "The bias after each correction (nats per sentence), and the "
            "share of runs whose jackknife estimate lies above the truth",
            formats={**{c: tables.significant(2) for c in corrected},
                     "runs above truth, jackknife": "{:.0%}"})

# %% tags=["remove-cell"]
def delta_agrees(v):
    """The prediction lies in the measured interval or within 25 % of it."""
    pred, meas = v["predicted −χ²/2K"], v["measured"]
    return bool(meas.low <= pred <= meas.high
                or abs(pred / meas.value - 1) < 0.25)


agrees = {k: delta_agrees(v) for k, v in bias_rows.items()}
heavy = {k: v["χ²/K > 1"] for k, v in bias_rows.items()}
glue("n_delta_good", sum(agrees.values()), display=False)
glue("n_delta_cases", len(agrees), display=False)
glue("heavy_agree_max", 100 * max([heavy[k] for k, a in agrees.items() if a],
                                  default=0.0), display=False)
glue("heavy_fail_min", 100 * min([heavy[k] for k, a in agrees.items() if not a],
                                 default=0.0), display=False)
better_jk = sum(abs(v["jackknife"].value) < abs(v["measured"].value)
                for v in bias_rows.values())
better_pi = sum(abs(v["plug-in"].value) < abs(v["measured"].value)
                for v in bias_rows.values())
glue("n_jk_better", int(better_jk), display=False)
glue("n_pi_better", int(better_pi), display=False)
glue("n_bias_cases", len(bias_rows), display=False)
glue("markov_factor", I.markov_factor(0.05, T), display=False)

# %% [markdown]
# The delta method's prediction lies within the measured interval, or within 25 % of the
# measured bias, in {glue:text}`n_delta_good` of {glue:text}`n_delta_cases` cases. Where it
# agrees, at most {glue:text}`heavy_agree_max:.1f` % of the sentences have $\chi^2/K > 1$;
# where it fails, at least {glue:text}`heavy_fail_min:.1f` % do. Those sentences' weights are
# so heavy-tailed that the second-order expansion has no meaning for them: the prediction is
# dominated by a few astronomically large $\chi^2$ while the measured bias is merely large.
# The jackknife reduces the bias in {glue:text}`n_jk_better` of {glue:text}`n_bias_cases`
# cases and the plug-in in {glue:text}`n_pi_better`; both give up the direction of the
# bound, so their log-estimates can rise above the truth (their perplexities fall below
# it): the last column counts the runs where the jackknife's does.
#
# **A bound that holds with known probability.** The instance-level $\hat p_I$ is a
# non-negative unbiased estimate of $p(x_C)$, so by Markov's inequality $P(\hat p_I \ge p /
# \alpha) \le \alpha$: with probability at least $1 - \alpha$, $\mathrm{PPL} \le
# \widehat{\mathrm{PPL}}_I\, \alpha^{-1/T}$. At $\alpha = 0.05$ and the test split's $T$ the
# factor is {glue:text}`markov_factor:.6f`: the stochastic bound becomes a bound in
# practice.
#
# **PSIS as a diagnostic.** The Pareto shape $\hat k$ fitted to the largest weights
# ({cite:t}`vehtari-etal-2024-psis`) flags estimates whose weights are too heavy-tailed to
# trust; above $\min(1 - 1/\log_{10} K, 0.7)$ it calls them unreliable. On the curves'
# $K$ = {glue:text}`k_max_used:,` draws per sentence:

# %% tags=["hide-input"]
thr = I.pareto_k_threshold(k_max)
psis_rows = {}
for m in switch:
    for name in curve_names[:4]:
        kh = khat[m, name]
        flagged = np.nan_to_num(kh, nan=np.inf) > thr
        err = -err_at_max[m, name]
        psis_rows[m, name] = {
            "flagged": float(flagged.mean()),
            "error if flagged": err[flagged].mean() if flagged.any() else None,
            "error if not": err[~flagged].mean() if (~flagged).any() else None}
psis_table = pd.DataFrame(psis_rows).T
psis_table.index.names = ["model", "proposal"]
tables.show(psis_table, f"Share of sentences with k̂ > {thr:.2f} and the mean "
            f"error log p − log p̂ (nats) of the flagged and the other sentences "
            f"at K = {k_max:,}", formats={"flagged": "{:.0%}", **{
                c: tables.significant(2) for c in ["error if flagged",
                                                   "error if not"]}})

# %% [markdown]
# **A normaliser bug, quantified.** In the public KGLM code (`kglm-model`, branch
# `acl-2020-updates`, `evaluate_perplexity.py`) the per-instance estimate is
# `logsumexp(weights) - log(samples_per_batch)`: it divides by the samples of one batch,
# not by all $K$ (the default batch holds {glue:text}`kglm_b` sample). Every instance's
# log-estimate is then too high by $\log(K/b)$, and the perplexity too low by the factor
# $(K/b)^{-N/T}$. On the {glue:text}`n_curve_used:,` sentences of the curves (peek 1, sticky
# model, $K$ = {glue:text}`k_max_used:,`), with sentences or their articles as instances:

# %% tags=["hide-input"]
kg_rows = {}
for unit, (bugged, right) in kglm[("sticky", "peek 1")].items():
    kg_rows[unit] = {
        "exact": ppl_of("sticky", 0.0),
        "estimate, correct normaliser": ppl_of(
            "sticky", right - truth_sub["sticky"]),
        "estimate, kglm-model normaliser": ppl_of(
            "sticky", bugged - truth_sub["sticky"])}
kg_table = pd.DataFrame(kg_rows).T
kg_table.index.name = "instances"
tables.show(kg_table, "Perplexity with the right normaliser and with the public "
            "code's", shared=True)

# %% tags=["remove-cell"]
glue("kglm_b", kglm_samples_per_batch, display=False)

# %% [markdown]
# For sentences the bug reports a perplexity far below the truth, a "better" model than the
# exact one; for article-length instances (as in KGLM's Linked WikiText-2, where
# $T$ per instance is in the thousands) the factor is closer to 1, which may be why it went
# unnoticed. A unit test of this report (`test_normaliser_uses_the_total_sample_count`)
# guards against it.
#
# ## Tokenization as the latent variable
#
# A subword model gives probability to token sequences, and many sequences spell the same
# string; the string's probability is the sum over its segmentations,
# $p(x) = \sum_{s \in S(x)} p(s)$ ({doc}`03_segmentation`). The segmentation is a latent
# variable of every subword LM, and the same questions apply, on real models. For words
# short enough to enumerate every segmentation, the exact marginal is known. The proposals
# (`lmnotes.marginal`):
#
# - **constrained** ({cite:t}`cao-rimell-2021-evaluate`): the model's next-token distribution
#   restricted to the tokens that continue the string; it peeks at the string as far as the
#   next token, and takes the temperature $\tau$;
# - **guided**: constrained, mixed with the tokenizer's own segmentation and a uniform share
#   ({doc}`03_segmentation`): it reads the whole string through the tokenizer;
# - **no peeking**: unconstrained ancestral sampling of token sequences, whose weight is 1
#   for a sample that spells $x$ and 0 otherwise, so $\hat p(x)$ is the share of samples equal
#   to $x$ and about $1/p(x)$ draws are needed for one hit (the analogue of the invalid trees
#   that made the paper drop the non-peeking RNNG proposal).

# %% tags=["hide-input"]
pattern = re.compile(rf"^[a-z]{{{word_letters[0]},{word_letters[1]}}}$")
types = sorted({w for s in data["test"].words for w in s if pattern.match(w)})
pick = np.random.default_rng([seed, 4]).choice(
    len(types), min(n_words, len(types)), replace=False)
words = [" " + types[i] for i in sorted(pick)]
tok_rows, tok_curves, tok_skipped, tok_warnings = [], {}, [], []
draws_needed, ancestral_hits = {}, {}
tok_sizes = np.unique(np.round(np.logspace(0, np.log10(n_is), 15)).astype(int))
for name in tokenization_models:
    trained_here = name.startswith("wiki/")
    lm = models.load(name, device=device,
                     **({"size": size} if trained_here else {}))
    ok, exact, topk = [], [], []
    for w in words:
        count = marginal.lattices(lm, [w])[0].log_count()
        if count > np.log(max_segmentations):
            tok_skipped.append(f"{w.strip()!r} ({plots.label(name)})")
            continue
        lps = marginal.segmentation_logprobs(lm, w, max_segmentations)
        ok.append(w)
        exact.append(logsumexp(lps))
        topk.append([logsumexp(lps[:k]) for k in beam_sizes])
    exact, topk = np.array(exact), np.array(topk)
    configs = {f"constrained, τ = {t:g}": dict(stay=0.0, explore=0.0,
                                               temperature=t)
               for t in temperatures}
    configs["guided"] = dict(stay=0.5, explore=0.5)
    for label, kw in configs.items():
        d = memo.importance_sample(lm, ok, n_is, seed=seed, **kw)
        tok_curves[name, label] = (I.running(d.logw, tok_sizes)
                                   - exact[None]).sum(1)
        tok_rows.append({"model": plots.label(name), "proposal": label,
                         "instance level": I.instance_level(d.logw)
                         - exact.sum(),
                         "corpus level": I.corpus_level(d.logw) - exact.sum()})
    longest = max(len(w.encode()) for w in ok) + 1  # a token per byte at most
    samples = memo.sample(lm, n_ancestral, "ancestral", max_tokens=longest,
                          seed=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        anc = marginal.ancestral(samples, ok)
    tok_warnings += [str(c.message) for c in caught]
    ancestral_hits[name] = anc
    tok_rows.append({"model": plots.label(name), "proposal": SR.NO_PEEKING,
                     "instance level": anc.sum() - exact.sum(),
                     "corpus level": anc.sum() - exact.sum()})
    for j, k in enumerate(beam_sizes):
        miss = topk[:, j].sum() - exact.sum()
        tok_rows.append({"model": plots.label(name),
                         "proposal": f"exact {k} best segmentations",
                         "instance level": miss if abs(miss) > 1e-9 else 0.0,
                         "corpus level": None})
    draws_needed[name] = float(np.exp(-exact.max()))
tok = pd.DataFrame(tok_rows).set_index(["model", "proposal"])
tables.show(tok, f"Error of the log-estimate, log p̂ − log p summed over the "
            f"words (nats), K = {n_is} (n = {n_ancestral:,} for no peeking)",
            formats={c: tables.significant(3) for c in tok.columns})

# %% tags=["remove-cell"]
glue("n_tok_words", len(words), display=False)
glue("guided_trajectory", "; ".join(
    f"{tables.significant(2)(abs(c[0]))} then "
    f"{tables.significant(2)(abs(c[-1]))} nats ({plots.label(n)})"
    for (n, lab), c in tok_curves.items() if lab == "guided"), display=False)
glue("best_constrained", "; ".join(
    f"τ = {min((t for t in temperatures), key=lambda t: abs(tok_curves[n, f'constrained, τ = {t:g}'][-1])):g} "
    f"({plots.label(n)})" for n in tokenization_models), display=False)
glue("tok_skipped", "; ".join(tok_skipped) if tok_skipped else "none",
     display=False)
n_hits = {n: int(np.isfinite(v).sum()) for n, v in ancestral_hits.items()}
glue_md("ancestral_sentence", (
    f"The non-peeking proposal spelled none of the words in {n_ancestral:,} "
    "samples per model; its estimate is log 0 = −∞, and the code says so: "
    f"“{tok_warnings[0]}”" if tok_warnings and not any(n_hits.values()) else
    "The non-peeking proposal spelled " + ", ".join(
        f"{k} of the words ({plots.label(n)})" for n, k in n_hits.items())
    + f" in {n_ancestral:,} samples per model."), display=False)
glue("median_draws_needed", min(draws_needed.values()), display=False)
glue("n_is_used", n_is, display=False)
glue("n_ancestral_used", n_ancestral, display=False)

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, len(tokenization_models),
                         figsize=(plots.COLUMN, 3.2), squeeze=False)
tok_palette = dict(zip([f"constrained, τ = {t:g}" for t in temperatures],
                       sns.color_palette("colorblind", len(temperatures))))
tok_palette["guided"] = plots.HUMAN_COLOR
for ax, name in zip(axes[0], tokenization_models):
    for label, color in tok_palette.items():
        ax.plot(tok_sizes, -tok_curves[name, label], color=color, label=label,
                ls="--" if label == "guided" else "-")
    ax.set(yscale="symlog", title=plots.label(name))
    plots.plain_log(ax, "x", [1, 10, 100])
plots.figure_legend(fig, axes, ncol=4)
fig.supxlabel("samples per word K")
fig.supylabel("log p − log p̂, summed (nats)")
glue("fig_tokenization", fig, display=False)
plt.close(fig)

# %% [markdown]
# ```{glue:figure} fig_tokenization
# :name: fig-tokenization
#
# The error of one run's estimate against the number of samples, summed over the
# words, for the constrained proposal at each temperature and the guided proposal (a
# symmetric log scale: 0 is exact).
# ```
#
# Of the {glue:text}`n_tok_words` words drawn from the test split, those with more than
# {glue:text}`max_segmentations_used` segmentations were left out: {glue:text}`tok_skipped`.
# {glue:md}`ancestral_sentence` The most probable of these words would need about
# {glue:text}`median_draws_needed:,.3g` unconstrained samples for one hit. The
# constrained proposal, which peeks only as far as the next token, is far below the truth
# at $\tau = 1$ (the myopia that {doc}`03_segmentation` describes); raising its temperature
# helps a great deal here, because a flatter proposal reaches the long canonical tokens that
# the restricted model starves. The guided proposal, which reads the whole string through
# the tokenizer, is off by {glue:text}`guided_trajectory` (summed over the words: at $K = 1$,
# then at the largest $K$), and the best constrained temperature at the largest $K$ is
# {glue:text}`best_constrained`. Beam-style bounds are tight on words: the
# canonical segmentation alone (the $k = 1$ row, nearly always $s^*$) misses a little, ten
# segmentations almost nothing: a word's latent space is small, as RNNG's is in the paper.
#
# On whole sentences the segmentations cannot be enumerated. The reference is the guided
# stratified estimate of {doc}`03_segmentation` with {glue:text}`k_reference_used:,` draws
# per sentence, labelled as what it is, a reference and not the truth (its Pareto
# $\hat k$, median {glue:text}`ref_khat_median:.2f`, largest {glue:text}`ref_khat_max:.2f`),
# against each proposal with {glue:text}`n_is_used` draws, on
# {glue:text}`n_sent_tok` test sentences of at most {glue:text}`max_sentence_bytes_used`
# bytes:

# %% tags=["hide-input"]
short = [s for s in data["test"].sentences if len(s.encode()) <= max_sentence_bytes]
chosen = np.random.default_rng([seed, 5]).choice(
    len(short), min(n_sentences_tokenization, len(short)), replace=False)
sentences = [short[i] for i in sorted(chosen)]
sent_rows, ref_khat = [], []
for name in sentence_models:
    trained_here = name.startswith("wiki/")
    lm = models.load(name, device=device,
                     **({"size": size} if trained_here else {}))
    ref = memo.importance_sample(lm, sentences, k_reference, seed=seed + 1,
                                 stay=0.5, explore=0.5)
    ref_lp = ref.logmarginal()
    with np.errstate(divide="ignore", invalid="ignore"):
        ref_khat += list(I.pareto_k(ref.logw))
    row = {"model": plots.label(name), "proposal": "canonical segmentation only",
           "instance level": (ref.log_canonical - ref_lp).sum(),
           "corpus level": None}
    sent_rows.append(row)
    for label, kw in configs.items():
        d = memo.importance_sample(lm, sentences, n_is, seed=seed, **kw)
        sent_rows.append({"model": plots.label(name), "proposal": label,
                          "instance level": I.instance_level(d.logw)
                          - ref_lp.sum(),
                          "corpus level": I.corpus_level(d.logw)
                          - ref_lp.sum()})
sent_table = pd.DataFrame(sent_rows).set_index(["model", "proposal"])
tables.show(sent_table, f"Sentences: log p̂ − log p̂_ref summed over the "
            f"sentences (nats), K = {n_is}; the reference has "
            f"{k_reference:,} guided draws per sentence",
            formats={c: tables.significant(3) for c in sent_table.columns})

# %% tags=["remove-cell"]
glue("max_segmentations_used", max_segmentations, display=False)
glue("k_reference_used", k_reference, display=False)
glue("ref_khat_median", float(np.nanmedian(ref_khat)), display=False)
glue("ref_khat_max", float(np.nanmax(ref_khat)), display=False)
glue("n_sent_tok", len(sentences), display=False)
glue("max_sentence_bytes_used", max_sentence_bytes, display=False)
best_sent = sent_table["instance level"].drop(
    "canonical segmentation only", level=1).abs().groupby(level=0).idxmin()
glue("best_sentence_proposal", "; ".join(
    f"{m}: {p}" for m, (_, p) in best_sent.items()), display=False)

# %% [markdown]
# Closest to the reference: {glue:text}`best_sentence_proposal`. Over sentences the
# constrained proposal falls further behind at every temperature, and aggregating over the
# corpus rather than per sentence costs more, as on the switch-LM.

# %% [markdown]
# ## The source's own numbers
#
# The paper's Table 1 and Table 2, as printed, and what follows from them:

# %% tags=["hide-input"]
paper = pd.DataFrame({
    "RNNG": [94.4, 96.0, 96.7, 97.9, 121.6, 734.0, None,
             85.3, 84.4, 84.2, 84.0, 83.8, 97.2, None],
    "EntityNLM": [122.6, 122.7, 120.8, 120.7, 120.5, 152.5, 131.7,
                  113.5, 110.6, 110.0, 109.9, 109.0, 129.6, 113.9],
    "KGLM": [101.9, 59.3, 48.2, 41.7, 170.0, 7468.7, 86.8,
             99.3, 48.1, 36.6, 29.6, 90.7, 3756.1, 71.9]},
    index=pd.MultiIndex.from_product(
        [["corpus", "instance"],
         [f"τ = {t:g}" for t in [0.5, 0.9, 1.0, 1.1, 2.0, 5.0]]
         + ["no peeking"]], names=["level", "proposal"]))
paper_beam = pd.DataFrame({"RNNG": [96.3, 87.0, 84.3],
                           "EntityNLM": [150.2, 147.1, 144.5],
                           "KGLM": [153.7, 152.6, None]},
                          index=["k = 1", "k = 10", "k = 100"])
lower = (paper.loc["instance"] < paper.loc["corpus"]).where(
    paper.loc["instance"].notna())
n_pairs, n_lower = int(lower.notna().sum().sum()), int(lower.sum().sum())
best_tau = pd.DataFrame({
    lvl: paper.loc[lvl].iloc[:6].idxmin() for lvl in ["instance", "corpus"]})
kglm_c = paper.loc[("corpus", "τ = 1.1"), "KGLM"]
kglm_i = paper.loc[("instance", "τ = 1.1"), "KGLM"]
kglm_gap = kglm_c - kglm_i
kglm_vs_reported = 43 - paper.loc[("instance", "τ = 1.1"), "KGLM"]
rnng_beam_below = paper_beam.loc["k = 100", "RNNG"] < paper.loc[
    "corpus", "RNNG"].min()
best_tau.index.name = "model"
tables.show(best_tau.rename(columns=lambda c: f"best τ, {c} level"),
            "The best temperature in the paper's Table 1, by model and level")

# %% tags=["remove-cell"]
glue("paper_n_pairs", n_pairs, display=False)
for lvl in ["instance", "corpus"]:
    glue(f"paper_best_{lvl}", ", ".join(
        f"{m} {t}" for m, t in best_tau[lvl].items()), display=False)
glue("paper_n_lower", n_lower, display=False)
glue("kglm_gap", float(kglm_gap), display=False)
glue("kglm_vs_reported", float(kglm_vs_reported), display=False)
glue("rnng_beam", float(paper_beam.loc["k = 100", "RNNG"]), display=False)
glue("rnng_corpus_min", float(paper.loc["corpus", "RNNG"].min()), display=False)

# %% [markdown]
# In the printed Table 1, instance level is below corpus level in
# {glue:text}`paper_n_lower` of {glue:text}`paper_n_pairs` pairs, as claimed. The text's
# "approximately 10 nats lower" for KGLM at $\tau = 1.1$ is a difference of perplexities,
# which have no unit, and it is {glue:text}`kglm_gap:.1f`, not 10; the "43 nats" reported by
# {cite:t}`logan-etal-2019-barack` is a perplexity too, {glue:text}`kglm_vs_reported:.1f`
# above the instance-level estimate. The advice "$\tau \in [1.1, 2]$" holds at instance
# level (the best temperatures: {glue:text}`paper_best_instance`); at corpus level they are
# {glue:text}`paper_best_corpus`. RNNG's strict beam bound at $k = 100$
# ({glue:text}`rnng_beam:.1f`) lies below *every* corpus-level estimate (at least
# {glue:text}`rnng_corpus_min:.1f`): a certain upper bound under an estimate that is meant
# to be one on average, which is the corpus-level bias this chapter measures.
#
# ## The claims

# %% tags=["hide-input"]
def fmt(e, digits=3):
    return tables.significant(digits)(e)


def scale(e, factor):
    return stats.Estimate(factor * e.value, factor * e.low, factor * e.high)


latent_cases = [(m, n) for m in switch for n in latent_names]
ub = {k: mean_estimate(runs[k]["instance"]) for k in latent_cases}
ub_testable = [k for k in latent_cases if -predicted_bias(*k, k_runs) / N_test
               > (ub[k].high - ub[k].low) / 2]
ub_for = sum(ub[k].high < 0 for k in ub_testable)
ub_against = sum(ub[k].low > 0 for k in ub_testable)
below_truth = np.mean([np.mean(runs[k]["instance"] > 0) for k in latent_cases])
worst_ub = max(ub, key=lambda k: ub[k].high)

conv_for, conv_against = 0, 0
for m in switch:
    for n in curve_names[:4]:
        e = gap_interval[m, n]
        conv_for += e.low > 0
        conv_against += e.high < CONVERGED

peekers = [SR.peek_label(h) for h in peek_horizons if h > 0] + [SR.MEAN_FIELD]
peek_cases = {(m, n): mean_estimate(runs[m, SR.NO_PEEKING]["instance"]
                                    - runs[m, n]["instance"])
              for m in switch for n in peekers}
peek_for = sum(e.high < 0 for e in peek_cases.values())
peek_against = sum(e.low > 0 for e in peek_cases.values())
tok_peek = {mm: tok.loc[(mm, "guided"), "instance level"]
            > tok.loc[(mm, SR.NO_PEEKING), "instance level"]
            for mm in tok.index.get_level_values(0).unique()}

tau_for = sum(any(t in (1.1, 2.0) for t in map(float, r[
    "τ within the interval of the best"].split(", "))) and
    r[f"best τ (runs, K = {k_runs})"] > 1 for r in tau_rows.values())
tau_against = sum(r[f"best τ (runs, K = {k_runs})"] <= 1 and not any(
    t in (1.1, 2.0) for t in map(float, r[
        "τ within the interval of the best"].split(", ")))
    for r in tau_rows.values())

SHARED = 0.05  # densities that share at least 5 % of their mass overlap
sep_for, sep_against, sep_text = 0, 0, []
for m in switch:
    ranked = sorted(density_names, key=lambda n: runs[m, n]["instance"].mean(),
                    reverse=True)
    best = ranked[0]
    ov = overlap((runs[m, best]["instance"] / T).to_numpy(),
                 (runs[m, ranked[1]]["instance"] / T).to_numpy())
    sep_for += ov >= SHARED
    sep_against += ov < SHARED
    sep_text.append(f"{m}, the best two ({best}, {ranked[1]}) overlap "
                    f"{ov:.2f}")
    for worse in (SR.NO_PEEKING, SR.peek_label(1, 0.5)):
        x, y = runs[m, best]["instance"] / T, runs[m, worse]["instance"] / T
        p_ = ss.ttest_ind(x, y, equal_var=False).pvalue
        ov = overlap(x.to_numpy(), y.to_numpy())
        sep_for += p_ < 0.05 and ov < SHARED
        sep_against += ov >= SHARED
        sep_text.append(f"{m}, {best} vs {worse}: overlap {ov:.2f}, "
                        f"p {tables.pvalue(p_)}")
rank_for = sum(r.pvalue < 0.05 and r.statistic > 0 for r in kendall.values())
rank_against = sum(r.pvalue < 0.05 and r.statistic < 0
                   for r in kendall.values())

beam_strict = all(np.all(logsumexp(best_paths[m, k], axis=1)
                         <= logp[m] + 1e-9)
                  for m in switch for k in beam_sizes)
tight_for = sum(share_rows[m]["_diff"].low > 0 for m in switch)
beam_gap = {m: 100 * (beam_table.loc[f"k = {k_top}", f"beam under q, {m}"]
                      / ppl_of(m, 0.0, T) - 1) for m in switch}
tight_against = sum(share_rows[m]["_diff"].high < 0 for m in switch)

claims = pd.DataFrame([
    {"claim": "1. The IS estimate of perplexity is a stochastic upper bound "
              "(Eq. 4)",
     "measured": f"E log p̂ − log p per sentence below 0 beyond its interval "
                 f"in {ub_for} of the {len(ub_testable)} model–proposal pairs "
                 f"whose predicted bias exceeds the runs' resolution "
                 f"({len(ub) - len(ub_testable)} others: below it; least: "
                 f"{worst_ub[1]}, {worst_ub[0]}: {fmt(ub[worst_ub])} nats); "
                 f"{100 * below_truth:.0f} % of single runs fall below the "
                 "truth: a bound on average, not run by run",
     "verdict": stats.verdict(ub_for, ub_against, len(ub_testable))},
    {"claim": "2. Estimates fall monotonically as K grows (Figs. 2–3)",
     "measured": f"E log p̂_K rises from each K to the next (K = 1, 10, "
                 f"100, …, where the predicted rise exceeds the interval) "
                 f"beyond the intervals in {rises} of {mono_cases} pairs "
                 f"({mono_unresolved} more: every rise below the resolution; "
                 f"a fall beyond the interval in {drops}); "
                 "single running curves' perplexity rises "
                 f"{falls_single} times in {n_curve_steps} steps",
     "verdict": stats.verdict(rises, drops, mono_cases)
     + (" (in expectation)" if rises == mono_cases else "")},
    {"claim": "3. No sign of convergence even at K = 10⁴ (Fig. 3)",
     "measured": f"perplexity above the truth at K = {k_max:,}: " + "; ".join(
         f"{n}, {m}: {fmt(scale(gap_interval[m, n], 100), 2)} %"
         for m in switch for n in curve_names[:4])
     + "; the draws needed, exp(KL), decide which proposal converges",
     "verdict": stats.verdict(int(conv_for), int(conv_against),
                              4 * len(switch))
     + ((" (not converged exactly where some sentences need more than K "
         "draws by exp(KL))" if agree else " (it depends on the proposal)")
        if conv_for and conv_against else "")},
    {"claim": "4. Instance-level estimates are uniformly lower than "
              "corpus-level ones (Table 1)",
     "measured": f"lower beyond the runs' interval in {ic_for} of "
                 f"{len(gaps_ic) - ic_unresolved} pairs ({ic_unresolved} more "
                 f"below the resolution), in {100 * ic_runs:.0f} % of single "
                 f"runs; a theorem (Rao–Blackwell), the paper's table: "
                 f"{n_lower} of {n_pairs} pairs",
     "verdict": stats.verdict(int(ic_for), int(ic_against),
                              len(gaps_ic) - ic_unresolved)},
    {"claim": "5. The two aggregations coincide for a non-latent LM",
     "measured": f"largest |instance − corpus| over {n_runs} runs: "
                 f"{nonlatent['instance − corpus'].iloc[0]:.2g} nats",
     "verdict": "reproduced (by construction)"
     if nonlatent["instance − corpus"].iloc[0] < 1e-6 else "contradicted"},
    {"claim": "6. Peeking proposals give better estimates",
     "measured": "log p̂ of no peeking minus a peeking proposal's, per "
                 "sentence, K = %d: " % k_runs + "; ".join(
         f"{n}, {m}: {fmt(e, 2)}" for (m, n), e in peek_cases.items())
     + " nats; tokenization: guided beats no peeking (−∞) for "
     + ", ".join(tok_peek),
     "verdict": stats.verdict(peek_for + sum(tok_peek.values()), peek_against,
                              len(peek_cases) + len(tok_peek))
     + (" (worse than no peeking: " + ", ".join(
         f"{n} on the {m} model" for (m, n), e in peek_cases.items()
         if e.low > 0) + ")" if peek_against else "")},
    {"claim": "7. A temperature slightly above 1 (τ ∈ [1.1, 2]) is best",
     "measured": "; ".join(
         f"{m}: best τ {r[f'best τ (runs, K = {k_runs})']:g}, tied within "
         f"the interval: {r['τ within the interval of the best']}; exact "
         f"KL-optimal τ {r['τ minimising KL (exact)']:.2g}"
         for m, r in tau_rows.items()),
     "verdict": stats.verdict(int(tau_for), int(tau_against), len(tau_rows))},
    {"claim": "8. Repeated estimates are stable: the best temperatures "
              "overlap, τ = 0.5 and no peeking are clearly separated from "
              f"them (Fig. 4; overlap: ≥ {SHARED:.0%} of the mass shared)",
     "measured": "; ".join(sep_text) + f"; {n_sep} of {len(separation)} "
                 "neighbouring pairs differ (Welch p < 0.05) over "
                 f"{n_runs} runs of K = {k_runs}",
     "verdict": stats.verdict(int(sep_for), int(sep_against),
                              len(sep_text))
     + (f" (some pairs share less or more than {SHARED:.0%} against the "
        "claim; see the measured column)" if sep_against and sep_for
        else "")},
    {"claim": "9. The ranking of proposals holds as K grows",
     "measured": f"Kendall τ between the ranks at K = 10 and K = {k_max:,}: "
                 + "; ".join(f"{m}: {r.statistic:.2f} (p = "
                             f"{tables.pvalue(r.pvalue)})"
                             for m, r in kendall.items()),
     "verdict": stats.verdict(rank_for, rank_against, len(kendall))},
    {"claim": "10. Beam marginalisation gives strict bounds, tight only for "
              "small latent spaces (Table 2)",
     "measured": ("every k-best bound ≥ the exact perplexity" if beam_strict
                  else "a bound fell below the truth")
     + f"; share of p(x) on the {k_top} paths of the beam under q, short "
       "(≤ 10 tokens) minus long (> 40) sentences: " + "; ".join(
           f"{m}: {fmt(share_rows[m]['_diff'], 2)}" for m in switch)
     + f"; at k = {k_top} the bound is " + ", ".join(
         f"{tables.significant(2)(beam_gap[m])} % above the truth ({m})"
         for m in switch)
     + ": the posterior's concentration matters as much as the space's size",
     "verdict": stats.verdict(tight_for, tight_against, len(switch))
     if beam_strict else "contradicted"},
    {"claim": "11. The source's arithmetic: KGLM instance level ≈ 10 nats "
              "below corpus level at τ = 1.1",
     "measured": f"{kglm_c:.1f} − {kglm_i:.1f} = {kglm_gap:.1f} is a "
                 "difference of perplexities (which have no unit); in nats "
                 f"per token the gap is ln({kglm_c:.1f} / {kglm_i:.1f}) = "
                 f"{np.log(kglm_c / kglm_i):.2f}; the '43 nats' reported "
                 f"earlier is a perplexity too, {kglm_vs_reported:.1f} above",
     "verdict": "contradicted (in nats the gap is "
                f"{np.log(kglm_c / kglm_i):.2f} per token, not ≈ 10; as "
                f"perplexities it is {kglm_gap:.1f})"},
])[["claim", "verdict", "measured"]]
lmclaims.save(claims, "04_importance_sampling")
tables.show(claims, "The claims of the paper and the verdicts", index=False)
