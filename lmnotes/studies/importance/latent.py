"""A latent language model whose marginal is exact: a Markov-switching mixture of language
models, its exact inference, and the proposals importance sampling draws from.
Importance-sampling chapter (04, Logan, Gardner & Singh 2020).

C component LMs share one vocabulary; a hidden state z_t in {1..C} per token picks the
component that emits token t, and the states form a Markov chain:

    p(x, z) = pi_{z_1} e_1(z_1) prod_{t>=2} A_{z_{t-1} z_t} e_t(z_t),   e_t(k) = p_k(x_t | x_<t).

The components do not read z, so the forward algorithm sums the C^T paths exactly,
p(x) = sum_z p(x, z), and the posterior p(z | x) is itself a Markov chain with transitions
post_t(j | i) = A_ij e_t(j) beta_t(j) / beta_{t-1}(i) (Rabiner 1989). Everything here works on
the log-emissions of N instances at once, a padded ``[N, T, C]`` array with the lengths.

A *proposal* is any Markov chain q(z | x) over the states, one ``[C, C]`` transition matrix
per position (:class:`Chain`); the families of the chapter:

- ``lookahead(h)``: q_t(j | i) oc A_ij e_t(j) beta^(h)_t(j), which reads the next h tokens
  (``h = 0``: the prior, the paper's *non-peeking* proposal, ancestral sampling of z;
  ``h = 1``: the current token; ``h = None``: all of x, the exact posterior);
- ``mean_field``: q_t(j | i) = gamma_t(j), the posterior marginal, which reads all of x but
  forgets the previous state (an imperfect peeker, like a discriminative parser);
- ``temper(q, tau)``: q_t^tau oc q_t^(1/tau), the paper's proposal temperature.

Draws from a proposal come with their importance weights log p(x, z) - log q(z | x)
(:func:`draw`); :func:`divergence` gives KL(p(z|x) || q) and chi^2(p(z|x) || q) exactly by
recursions over the chain, and :func:`kbest` / :func:`beam` the paper's beam
marginalisation (Sec. 4) against the exact top-k paths.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

_TOL = 1e-6  # how far a row of a stochastic matrix may sum from 1


@dataclass(frozen=True)
class Emissions:
    """log e_t(k) of N instances, padded: ``log_e[n, t, k]`` for t < ``lengths[n]``."""

    log_e: np.ndarray  # [N, T, C]
    lengths: np.ndarray  # [N] ints

    def __post_init__(self):
        log_e, lengths = np.asarray(self.log_e, float), np.asarray(self.lengths)
        if log_e.ndim != 3 or lengths.shape != log_e.shape[:1]:
            raise ValueError(
                f"emissions must be [N, T, C] with N lengths; got {log_e.shape} and {lengths.shape}"
            )
        if len(lengths) == 0:
            raise ValueError("no instances: the corpus is empty")
        if lengths.min() < 1 or lengths.max() > log_e.shape[1]:
            raise ValueError(
                "every instance needs at least one token (an empty instance has no "
                f"perplexity) and at most {log_e.shape[1]}; lengths range "
                f"{lengths.min()}..{lengths.max()}"
            )
        live = self.mask(lengths, log_e.shape[1])
        if np.isnan(log_e[live]).any():
            raise ValueError("the emissions contain NaN: a component's score failed")
        dead = live & ~np.isfinite(logsumexp(log_e, axis=2))
        if dead.any():
            n, t = np.argwhere(dead)[0]
            raise ValueError(f"no component gives token {t} of instance {n} any probability: p(x) = 0")
        if (log_e[live] > 1e-9).any():
            raise ValueError("an emission exceeds probability 1: pass log-probabilities")
        object.__setattr__(self, "log_e", np.where(live[..., None], log_e, 0.0))
        object.__setattr__(self, "lengths", lengths.astype(int))

    @staticmethod
    def mask(lengths, width: int) -> np.ndarray:
        return np.arange(width)[None, :] < np.asarray(lengths)[:, None]

    @classmethod
    def stack(cls, per_instance: list[np.ndarray]) -> "Emissions":
        """From one ``[T_n, C]`` array per instance."""
        if not per_instance:
            raise ValueError("no instances: the corpus is empty")
        lengths = np.array([len(e) for e in per_instance])
        C = {np.shape(e)[1] for e in per_instance}
        if len(C) != 1:
            raise ValueError(f"instances have different numbers of components: {sorted(C)}")
        out = np.zeros((len(per_instance), max(lengths.max(), 1), C.pop()))
        for n, e in enumerate(per_instance):
            out[n, : len(e)] = e
        return cls(out, lengths)

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.log_e.shape

    def subset(self, index) -> "Emissions":
        lengths = self.lengths[index]
        return Emissions(self.log_e[index][:, : lengths.max()], lengths)

    def component(self, k: int) -> "Emissions":
        """The non-latent LM of component k alone (C = 1)."""
        return Emissions(self.log_e[..., k : k + 1], self.lengths)


def _check_stochastic(name: str, p: np.ndarray) -> None:
    if not np.isfinite(p).all() or (p < 0).any() or np.abs(p.sum(-1) - 1).max() > _TOL:
        raise ValueError(
            f"{name} must be a stochastic matrix (non-negative rows that sum to 1); "
            f"row sums are {np.round(p.sum(-1).ravel()[:6], 6).tolist()}"
        )


@dataclass(frozen=True)
class SwitchLM:
    """pi (``[C]``) and A (``[C, C]``): the chain over components of the switch-LM."""

    pi: np.ndarray
    A: np.ndarray

    def __post_init__(self):
        pi, A = np.asarray(self.pi, float), np.asarray(self.A, float)
        if A.ndim != 2 or A.shape != (len(pi), len(pi)):
            raise ValueError(f"pi has {len(pi)} states but A has shape {A.shape}")
        _check_stochastic("pi", pi)
        _check_stochastic("A", A)
        object.__setattr__(self, "pi", pi)
        object.__setattr__(self, "A", A)

    @property
    def n_states(self) -> int:
        return len(self.pi)

    def _check(self, em: Emissions) -> None:
        if em.shape[2] != self.n_states:
            raise ValueError(f"the emissions have {em.shape[2]} components, the chain {self.n_states} states")

    def forward(self, em: Emissions) -> tuple[np.ndarray, np.ndarray]:
        """log p(x) per instance and the forward variables log alpha_t(j) = log p(x_<=t, z_t = j)."""
        self._check(em)
        N, T, C = em.shape
        log_a = np.full((N, T, C), -np.inf)
        log_A = np.log(self.A)
        with np.errstate(divide="ignore"):
            log_a[:, 0] = np.log(self.pi) + em.log_e[:, 0]
            for t in range(1, T):
                step = logsumexp(log_a[:, t - 1, :, None] + log_A, axis=1) + em.log_e[:, t]
                log_a[:, t] = np.where((t < em.lengths)[:, None], step, log_a[:, t - 1])
        return logsumexp(log_a[np.arange(N), em.lengths - 1], axis=1), log_a

    def backward(self, em: Emissions) -> np.ndarray:
        """log beta_t(i) = log p(x_>t | z_t = i) (0 at each instance's last token)."""
        self._check(em)
        N, T, C = em.shape
        log_b = np.zeros((N, T, C))
        log_A = np.log(self.A)
        with np.errstate(divide="ignore"):
            for t in range(T - 2, -1, -1):
                step = logsumexp(log_A + (em.log_e[:, t + 1] + log_b[:, t + 1])[:, None, :], axis=2)
                log_b[:, t] = np.where((t + 1 < em.lengths)[:, None], step, 0.0)
        return log_b

    def logprob(self, em: Emissions) -> np.ndarray:
        """log p(x) per instance, exactly (the forward algorithm)."""
        return self.forward(em)[0]

    def posterior_marginals(self, em: Emissions) -> np.ndarray:
        """gamma_t(j) = p(z_t = j | x), ``[N, T, C]`` (rows past an instance's end are zero)."""
        logp, log_a = self.forward(em)
        g = np.exp(log_a + self.backward(em) - logp[:, None, None])
        return g * Emissions.mask(em.lengths, em.shape[1])[..., None]

    @classmethod
    def fit(cls, em: Emissions, n_iter: int = 30, init: "SwitchLM | None" = None) -> "SwitchLM":
        """pi and A by expectation-maximisation (Baum-Welch) with the emissions fixed."""
        C = em.shape[2]
        model = init or cls(np.full(C, 1 / C), np.full((C, C), 1 / C))
        for _ in range(n_iter):
            post = posterior(model, em)
            gamma = chain_marginals(post)  # [N, T, C]
            live = Emissions.mask(em.lengths, em.shape[1])[:, 1:, None, None]
            xi = (gamma[:, :-1, :, None] * np.exp(post.log_trans[:, 1:]) * live).sum((0, 1))
            pi = gamma[:, 0].mean(0)
            model = cls(pi / pi.sum(), xi / xi.sum(1, keepdims=True))
        return model

    @classmethod
    def fit_static(cls, em: Emissions, n_iter: int = 30) -> "SwitchLM":
        """The static mixture of the same components: fixed weights w (every row of A equal to
        pi = w, so z_t ignores z_{t-1}), fitted by EM with the emissions fixed, w <- the mean
        responsibility w_k e_t(k) / sum_j w_j e_t(j) over the tokens. The baseline that says what
        the latent *state* (memory in A) adds over mixing the components."""
        C = em.shape[2]
        live = Emissions.mask(em.lengths, em.shape[1])
        w = np.full(C, 1 / C)
        with np.errstate(divide="ignore"):
            for _ in range(n_iter):
                log_r = np.log(w) + em.log_e
                r = np.exp(log_r - logsumexp(log_r, axis=2, keepdims=True))[live]  # [tokens, C]
                w = r.mean(0)
        w = w / w.sum()
        return cls(w, np.tile(w, (C, 1)))

    def sticky(self, rho: float) -> "SwitchLM":
        """The chain made persistent: A_rho = rho I + (1 - rho) A (the same pi)."""
        if not 0 <= rho < 1:
            raise ValueError(f"the stickiness rho must lie in [0, 1), got {rho}")
        return SwitchLM(self.pi, rho * np.eye(self.n_states) + (1 - rho) * self.A)

    def memory(self) -> float:
        """|lambda_2(A)|, the second-largest eigenvalue modulus: 0 when A has rank one (every row
        the same, z_t independent of z_{t-1}), 1 for a chain that never switches."""
        return float(np.sort(np.abs(np.linalg.eigvals(self.A)))[-2]) if self.n_states > 1 else 0.0


@dataclass(frozen=True)
class Chain:
    """A Markov chain over the states of each instance: ``log_init[n, j]`` = log q(z_1 = j) and
    ``log_trans[n, t, i, j]`` = log q(z_t = j | z_{t-1} = i) for 1 <= t < ``lengths[n]``
    (``log_trans[:, 0]`` is unused). Proposals and the exact posterior are Chains."""

    log_init: np.ndarray  # [N, C]
    log_trans: np.ndarray  # [N, T, C, C]
    lengths: np.ndarray

    def subset(self, index) -> "Chain":
        lengths = self.lengths[index]
        return Chain(self.log_init[index], self.log_trans[index][:, : lengths.max()], lengths)


def _normalised(log_init: np.ndarray, log_trans: np.ndarray, lengths) -> Chain:
    with np.errstate(invalid="ignore"):
        log_init = log_init - logsumexp(log_init, axis=-1, keepdims=True)
        log_trans = log_trans - logsumexp(log_trans, axis=-1, keepdims=True)
    # a row with no mass (a previous state the chain cannot be in) stays uniform, never NaN
    C = log_init.shape[-1]
    log_trans = np.where(np.isnan(log_trans), -np.log(C), log_trans)
    return Chain(log_init, log_trans, np.asarray(lengths))


def _guided(model: SwitchLM, em: Emissions, log_b: np.ndarray) -> Chain:
    """q_t(j | i) oc A_ij e_t(j) b_t(j), q_1(j) oc pi_j e_1(j) b_1(j)."""
    with np.errstate(divide="ignore"):
        score = em.log_e + log_b  # [N, T, C]
        return _normalised(
            np.log(model.pi) + score[:, 0], np.log(model.A)[None, None] + score[:, :, None, :], em.lengths
        )


def posterior(model: SwitchLM, em: Emissions) -> Chain:
    """The exact posterior p(z | x) as a chain: post_t(j | i) = A_ij e_t(j) beta_t(j) / beta_{t-1}(i)."""
    return _guided(model, em, model.backward(em))


def lookahead(model: SwitchLM, em: Emissions, h: int | None) -> Chain:
    """The proposal that peeks at the next h tokens: q_t(j | i) oc A_ij e_t(j) beta^(h)_t(j), with
    beta^(1) = 1 and beta^(h)_t(j) = sum_k A_jk e_{t+1}(k) beta^(h-1)_{t+1}(k). ``h = 0`` is the prior
    (no peeking), ``h = None`` the exact posterior."""
    model._check(em)
    if h is None:
        return posterior(model, em)
    if h < 0 or int(h) != h:
        raise ValueError(f"the peek horizon h must be a whole number >= 0 (or None: all of x), got {h}")
    N, T, C = em.shape
    if h == 0:
        with np.errstate(divide="ignore"):
            return _normalised(
                np.broadcast_to(np.log(model.pi), (N, C)).copy(),
                np.broadcast_to(np.log(model.A), (N, T, C, C)).copy(),
                em.lengths,
            )
    log_b = np.zeros((N, T, C))
    has_next = Emissions.mask(em.lengths - 1, T)[..., None]  # position t + 1 exists
    with np.errstate(divide="ignore"):
        log_A = np.log(model.A)
        for _ in range(h - 1):
            nxt = np.concatenate([em.log_e[:, 1:] + log_b[:, 1:], np.zeros((N, 1, C))], axis=1)
            log_b = np.where(has_next, logsumexp(log_A[None, None] + nxt[:, :, None, :], axis=3), 0.0)
    return _guided(model, em, log_b)


def mean_field(model: SwitchLM, em: Emissions) -> Chain:
    """q_t(j | i) = gamma_t(j): reads all of x, ignores the previous state."""
    gamma = model.posterior_marginals(em)
    with np.errstate(divide="ignore"):
        log_g = np.log(gamma)
    C = em.shape[2]
    return _normalised(log_g[:, 0], np.repeat(log_g[:, :, None, :], C, axis=2), em.lengths)


def temper(chain: Chain, tau: float) -> Chain:
    """q^tau oc q^(1/tau), row by row (the proposal temperature of Dyer+ 2016 and Kim+ 2019)."""
    if not (np.isfinite(tau) and tau > 0):
        raise ValueError(f"the temperature tau must be a positive number, got {tau}")
    if tau == 1:
        return chain
    return _normalised(chain.log_init / tau, chain.log_trans / tau, chain.lengths)


def chain_marginals(chain: Chain) -> np.ndarray:
    """q(z_t = j) under the chain, ``[N, T, C]``."""
    N, T, C = chain.log_trans.shape[:3]
    m = np.zeros((N, T, C))
    m[:, 0] = np.exp(chain.log_init)
    for t in range(1, T):
        m[:, t] = np.einsum("ni,nij->nj", m[:, t - 1], np.exp(chain.log_trans[:, t]))
    return m * Emissions.mask(chain.lengths, T)[..., None]


def entropy(chain: Chain) -> np.ndarray:
    """H(z) of a chain per instance, exactly: H(z_1) + sum_t E[H(z_t | z_{t-1})]. For the
    posterior chain it is H(z | x), how many paths effectively carry p(x): e^H of them."""
    N, T, C = chain.log_trans.shape[:3]
    live = Emissions.mask(chain.lengths, T)
    m = chain_marginals(chain)
    with np.errstate(invalid="ignore"):
        h0 = -np.where(chain.log_init > -np.inf, np.exp(chain.log_init) * chain.log_init, 0).sum(-1)
        step = -np.where(chain.log_trans > -np.inf, np.exp(chain.log_trans) * chain.log_trans, 0).sum(-1)
    prev = np.concatenate([m[:, :1], m[:, :-1]], axis=1)  # the state before step t
    h_t = (prev * step).sum(-1)
    return h0 + np.where(live[:, 1:], h_t[:, 1:], 0).sum(1)


def joint_logprob(model: SwitchLM, em: Emissions, z: np.ndarray) -> np.ndarray:
    """log p(x, z) of paths ``z[n, ..., t]`` (entries past an instance's end are ignored)."""
    n = np.arange(em.shape[0]).reshape((-1,) + (1,) * (z.ndim - 2))
    with np.errstate(divide="ignore"):
        out = np.log(model.pi)[z[..., 0]] + em.log_e[n, 0, z[..., 0]]
        for t in range(1, z.shape[-1]):
            step = np.log(model.A)[z[..., t - 1], z[..., t]] + em.log_e[n, t, z[..., t]]
            out = out + np.where((t < em.lengths).reshape(n.shape), step, 0.0)
    return out


def draw(
    model: SwitchLM, em: Emissions, q: Chain, n_samples: int, seed: int = 0, max_elements: int = 1 << 20
) -> np.ndarray:
    """``n_samples`` paths z ~ q per instance; returns their log importance weights
    log w = log p(x, z) - log q(z | x), ``[N, K]`` (Eq. 2 of Logan+ 2020 averages exp of them).

    Paths are drawn by inverse-cdf sampling over the C states, a step at a time for a block of
    instances of similar length (at most ``max_elements`` paths in flight); the cdf of every
    row of q and the weight's increment log A_ij + log e_t(j) - log q_t(j | i) of every step
    are computed once, so a step is two gathers and C - 1 comparisons per path. Deterministic
    for a seed. A weight may be 0 (log w = -inf: a component gives the token no probability),
    never NaN.
    """
    model._check(em)
    if int(n_samples) != n_samples or n_samples < 1:
        raise ValueError(f"the number of samples K must be a positive whole number, got {n_samples}")
    _check_support(model, em, q)
    rng = np.random.default_rng(seed)
    N, T, C = em.shape
    K = int(n_samples)
    inc0, inc, cdf0, cdf = _steps(model, em, q)
    logw = np.zeros((N, K))
    order = np.argsort(em.lengths, kind="stable")
    block = max(1, max_elements // K)
    for a in range(0, N, block):
        rows = order[a : a + block]  # ascending lengths: the rows still running are a suffix
        lengths = em.lengths[rows]
        b = len(rows)
        z = _pick(cdf0[rows][:, None, :], rng.random((b, K)))
        lw = np.take_along_axis(inc0[rows], z, 1)
        for t in range(1, lengths.max()):
            s = int(np.searchsorted(lengths, t, side="right"))  # rows[s:] have a token t
            flat = (np.arange(s, b)[:, None] - s) * C + z[s:]  # row of [b - s, C] blocks
            c = cdf[rows[s:], t].reshape(-1, C)[flat]  # [b - s, K, C]
            new = _pick(c, rng.random((b - s, K)))
            lw[s:] += inc[rows[s:], t].reshape(-1, C)[flat, new]
            z[s:] = new
        logw[rows] = lw
    return logw


def _steps(model: SwitchLM, em: Emissions, q: Chain):
    """What a draw from q needs at every step, computed once: the weight increments
    log A_ij + log e_t(j) - log q_t(j | i) (and the first step's), and the cdf of every row of
    q. Where q_t(j | i) = 0 the step is never drawn: its increment is 0, a placeholder, not
    NaN. Shared by :func:`draw` and the particle filter of :mod:`lmnotes.studies.importance.smc`."""
    with np.errstate(divide="ignore", invalid="ignore"):
        inc0 = np.nan_to_num(np.log(model.pi) + em.log_e[:, 0] - q.log_init, nan=0.0, posinf=0.0)
        inc = np.log(model.A)[None, None] + em.log_e[:, :, None, :] - q.log_trans
        inc = np.where(q.log_trans == -np.inf, 0.0, inc)
    return inc0, inc, np.cumsum(np.exp(q.log_init), axis=-1), np.cumsum(np.exp(q.log_trans), axis=-1)


def _pick(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-cdf draws: the first state whose cumulative probability exceeds u * total
    (u in [0, 1); 1 - u keeps a state of probability 0 from ever being drawn)."""
    x = (1.0 - u) * cdf[..., -1]
    new = np.zeros(u.shape, dtype=np.intp)
    for m in range(cdf.shape[-1] - 1):
        new += x > cdf[..., m]
    return new


def _check_support(model: SwitchLM, em: Emissions, q: Chain) -> None:
    """An error where q gives probability 0 to a step that p(z | x) can take (the estimate
    would miss that mass: Eq. 3 needs q > 0 wherever p(x, z) > 0)."""
    post = posterior(model, em)
    live = Emissions.mask(em.lengths, em.shape[1])
    live[:, 0] = False
    bad_init = (post.log_init > -np.inf) & (q.log_init == -np.inf)
    bad = (post.log_trans > -np.inf) & (q.log_trans == -np.inf) & live[..., None, None]
    # only from states the posterior can be in
    reach = chain_marginals(post) > 0
    bad &= np.concatenate([reach[:, :1], reach[:, :-1]], axis=1)[..., :, None]
    if bad_init.any() or bad.any():
        n = np.argwhere(bad_init)[0][0] if bad_init.any() else np.argwhere(bad)[0][0]
        raise ValueError(
            f"the proposal gives probability 0 to latent states that have mass under "
            f"p(z | x) (instance {n}): importance sampling would be biased; mix in "
            "some of the prior or raise the temperature"
        )


def divergence(p: Chain, q: Chain) -> tuple[np.ndarray, np.ndarray]:
    """KL(p || q) and log(1 + chi^2(p || q)) per instance, exactly, for two chains.

    KL sums E_p[log p_t - log q_t] over the steps; 1 + chi^2 = sum_z p(z)^2 / q(z) is a forward
    recursion with M_t(i, j) = p_t(j | i)^2 / q_t(j | i) (Owen 2013, Sec. 9.1: chi^2 is the
    variance of the weight w = p/q in units of its mean). chi^2 = inf where q misses p's support.
    """
    N, T, C = p.log_trans.shape[:3]
    live = Emissions.mask(p.lengths, T)
    m = chain_marginals(p)
    with np.errstate(invalid="ignore", divide="ignore"):
        kl0 = np.where(p.log_init > -np.inf, np.exp(p.log_init) * (p.log_init - q.log_init), 0).sum(-1)
        step = np.where(p.log_trans > -np.inf, np.exp(p.log_trans) * (p.log_trans - q.log_trans), 0)
        kl_t = (np.concatenate([m[:, :1], m[:, :-1]], axis=1)[..., None] * step).sum((-2, -1))
        kl = kl0 + np.where(live[:, 1:], kl_t[:, 1:], 0).sum(1)
        log_v = 2 * p.log_init - q.log_init
        M = 2 * p.log_trans - q.log_trans
        M = np.where(p.log_trans == -np.inf, -np.inf, M)
        log_v = np.where(p.log_init == -np.inf, -np.inf, log_v)
        for t in range(1, T):
            nxt = _logsumexp1(log_v[:, :, None] + M[:, t])
            log_v = np.where((t < p.lengths)[:, None], nxt, log_v)
    return kl, logsumexp(log_v, axis=1)


def _logsumexp1(a: np.ndarray) -> np.ndarray:
    """log sum exp over axis 1 of a ``[N, C, C]`` array, without scipy's per-call overhead
    (it runs once per token in :func:`divergence`, hundreds of times per call); rows of -inf
    give -inf."""
    mx = a.max(axis=1, keepdims=True)
    mx = np.where(np.isfinite(mx), mx, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - mx).sum(axis=1)) + mx[:, 0]


def kbest(model: SwitchLM, em: Emissions, k: int) -> np.ndarray:
    """log p(x, z) of the k most probable paths z per instance, exactly (list Viterbi:
    the best k partial paths into each state suffice, by the Markov property); ``[N, k]``,
    sorted, -inf where there are fewer than k paths."""
    if k < 1:
        raise ValueError(f"the beam size k must be at least 1, got {k}")
    model._check(em)
    N, T, C = em.shape
    with np.errstate(divide="ignore"):
        log_A = np.log(model.A)
        s = np.full((N, C, k), -np.inf)
        s[:, :, 0] = np.log(model.pi) + em.log_e[:, 0]
        for t in range(1, T):
            cand = (s[:, :, :, None] + log_A[None, :, None, :]).reshape(N, C * k, C) + em.log_e[:, t, None, :]
            top = -np.sort(-cand, axis=1)[:, :k]  # [N, k, C]
            s = np.where((t < em.lengths)[:, None, None], top.transpose(0, 2, 1), s)
    return -np.sort(-s.reshape(N, C * k), axis=1)[:, :k]


def beam(model: SwitchLM, em: Emissions, q: Chain, k: int) -> np.ndarray:
    """The paper's beam marginalisation (Logan+ 2020, Sec. 4): beam search of width k for the
    most probable paths under the proposal q; returns log p(x, z) of the k paths found,
    ``[N, k]`` (-inf where fewer). Their log-sum-exp is a certain lower bound on log p(x)."""
    if k < 1:
        raise ValueError(f"the beam size k must be at least 1, got {k}")
    model._check(em)
    N, T, C = em.shape
    n = np.arange(N)[:, None]
    with np.errstate(divide="ignore"):
        log_A, log_pi = np.log(model.A), np.log(model.pi)
        score = np.full((N, k), -np.inf)  # log q of each hypothesis
        joint = np.full((N, k), -np.inf)  # log p(x, z) of each hypothesis
        state = np.zeros((N, k), dtype=np.intp)
        w = min(k, C)
        first = np.argsort(-q.log_init, axis=1, kind="stable")[:, :w]
        score[:, :w] = np.take_along_axis(q.log_init, first, 1)
        joint[:, :w] = log_pi[first] + np.take_along_axis(em.log_e[:, 0], first, 1)
        state[:, :w] = first
        for t in range(1, T):
            cand_q = (score[:, :, None] + q.log_trans[n, t, state]).reshape(N, k * C)
            cand_p = (joint[:, :, None] + log_A[state] + em.log_e[:, t, None, :]).reshape(N, k * C)
            cand_q = np.where(np.isfinite(cand_p), cand_q, -np.inf)
            pick = np.argsort(-cand_q, axis=1, kind="stable")[:, :k]
            live = (t < em.lengths)[:, None]
            new_q = np.take_along_axis(cand_q, pick, 1)
            score = np.where(live, new_q, score)
            joint = np.where(
                live, np.where(new_q > -np.inf, np.take_along_axis(cand_p, pick, 1), -np.inf), joint
            )
            state = np.where(live, pick % C, state)
    return joint
