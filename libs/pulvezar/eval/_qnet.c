/*
 * pulvezar.eval._qnet: quantised nets whose first layer is an accumulator, updated per play.
 *
 * A net's first layer is split in two.  The *slot* part is a sum over the 50 slots of a board
 * (each side's points 1..24 and its bar, in the owner's numbering) of one row per (side, slot,
 * count): every encoding of pulvezar is, apart from its dense tail, such a sum (points' units,
 * the bar, checkers off, pips, blots and made points are all per-slot terms).  Its rows are
 * int32 at the accumulator scale, so a board's sum is exact whatever order it is added in, and
 * a play's board is its parent's sum plus the rows of the slots whose counts changed (at most
 * eight of the mover's and two of the opponent's).  The *dense* part (the contact flag and the
 * hand-made features and terms of encodings v2-v4, from _forward.c) is computed per board: the
 * contact flag adds an int32 row, the rest in float32, one hidden unit at a time in input order,
 * rounded to the accumulator.
 *
 * Then: activation a = clamp(round(acc / 2^shift), 0, cap) in int16; each later layer int16
 * weights, int32 sums, the same activation; the head's five int32 sums / 2^head_shift are the
 * logits of ValueNet's conditional sigmoids.  Every sum is an integer, so the AVX2 code and the
 * portable code (the same source compiled for the baseline CPU) give the same bits; the scales
 * are chosen by pulvezar.eval.quantised so that no sum can overflow.  The AVX2 code sums a layer
 * of int32 sums from its nonzero input pairs only (a clipped ReLU leaves many units at zero), each
 * pair's weights to every output in a row, and computes the dense tail per block of 64 units with
 * the block's sums in registers.
 *
 * make(h1, rows, bias1, contact, version, wx, shift1, cap1, layers[, wl]) -> capsule
 *   rows   int32 [2][25][16][h1p]: side (0 = on roll), slot, count, unit (h1p = h1 padded to 64);
 *          the count-0 rows are zero (their sum is in bias1)
 *   bias1  int32 [h1p]; contact int32 [h1p]: the row of the contact flag; version: the encoding of
 *          the dense tail (1-4: its 0, 10, 28 or 36 inputs, encoding[BASE:]); wx float32 [nx][h1p],
 *          already at the accumulator scale; or, for a net whose hand-made inputs join its second layer,
 *          wx empty and wl float32 [nx][out of the first later layer], each output's at its sum's scale
 *   layers a sequence of (w int16 [out][in_p], b int32 [out], shifts uint8 [out], cap, wide), the head
 *          last; wide: int64 sums (else int32, for a layer whose sums cannot overflow it)
 *          (out 5): a hidden unit's activation is clamp(round(sum / 2^shift), 0, cap), a logit sum / 2^shift
 * evaluate(net, boards, out)          out: N*5 float64 probabilities, each board from scratch
 * children(net, parents, index, boards, out)
 *        boards[i]: a play of the side on roll in parents[index[i]] (index: int32 per board), seen by
 *        the opponent, who is on roll next (the board `evaluate` would take); out: its probabilities,
 *        the first layer updated from its parent's (the same bits as `evaluate`).  Boards of one
 *        parent in a row share its sum.
 * sums(net, boards) / child_sums(net, parents, index, boards) -> int32 bytes N*h1p: the slot part
 *        (bias included), from scratch / updated from the parents
 * simd([level]) -> the kernel in use (1 AVX2, 0 portable); a level forces one (tests)
 */
#include "_forward.c"

#ifdef __x86_64__
#include <immintrin.h>
#endif

#define SLOTS 25
#define COUNTS 16
#define MAX_QLAYERS 4 /* later layers, the head included */

typedef struct {
    int h1, h1p, version, nx, race, nl;
    int32_t *rows, *bias1, *contact_row, *zero;
    float *wx;   /* the dense tail's first-layer weights [nx][h1p] (none with late inputs) */
    int late;    /* the dense tail joins the first later layer instead (wl [nx][out[0]]) */
    float *wl;
    int shift1, cap1;
    int in[MAX_QLAYERS], out[MAX_QLAYERS], cap[MAX_QLAYERS], wide[MAX_QLAYERS];
    uint8_t *shift[MAX_QLAYERS]; /* per output: its sum / 2^shift is the activation (the logit) */
    int16_t *w[MAX_QLAYERS];
    int16_t *wt[MAX_QLAYERS]; /* int32-sum layers: w by input pairs, [in/2][outp][2] (outp: out padded to 8) */
    int outp[MAX_QLAYERS];
    int32_t *act[MAX_QLAYERS]; /* with wt: [4][outp] the bias, shift, max(shift - 1, 0) and shift > 0, padded */
    int32_t *b[MAX_QLAYERS];
    int widest;
} QNet;

static int use_avx2 = 0;

static void qnet_destroy(QNet *q) {
    free(q->rows);
    free(q->bias1);
    free(q->contact_row);
    free(q->zero);
    free(q->wx);
    free(q->wl);
    for (int l = 0; l < q->nl; l++) {
        free(q->w[l]);
        free(q->wt[l]);
        free(q->act[l]);
        free(q->b[l]);
        free(q->shift[l]);
    }
    free(q);
}

static void qnet_free(PyObject *cap) {
    QNet *q = PyCapsule_GetPointer(cap, "pulvezar.qnet");
    if (q) qnet_destroy(q);
}

static void *aligned_copy(const Py_buffer *b) {
    size_t n = ((size_t)b->len + 63) / 64 * 64;
    void *p = aligned_alloc(64, n ? n : 64);
    if (p) {
        memset(p, 0, n ? n : 64);
        memcpy(p, b->buf, (size_t)b->len);
    }
    return p;
}

#define INL static inline __attribute__((always_inline))

static inline const int32_t *row_of(const QNet *q, int side, int slot, int n) {
    return q->rows + ((size_t)((side * SLOTS + slot) * COUNTS + n)) * q->h1p;
}

/* The rows of a board's occupied slots (`mine` side 0, `theirs` side 1), each against the zero row:
 * its sum is the bias plus these.  Returns their count (at most 50). */
INL int scratch_rows(const QNet *q, const uint8_t *mine, const uint8_t *theirs, const int32_t **add,
                     const int32_t **sub) {
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const uint8_t *c = side ? theirs : mine;
        for (int s = 0; s < SLOTS; s++)
            if (c[s]) {
                add[n] = row_of(q, side, s, c[s]);
                sub[n++] = q->zero;
            }
    }
    return n;
}

/* The rows that take one side's slots from `from` to `to`: n more (add, sub) pairs. */
INL int change_rows(const QNet *q, int side, const uint8_t *from, const uint8_t *to, const int32_t **add,
                    const int32_t **sub, int n) {
    for (int s = 0; s < SLOTS; s++)
        if (from[s] != to[s]) {
            add[n] = row_of(q, side, s, to[s]);
            sub[n++] = row_of(q, side, s, from[s]);
        }
    return n;
}

/* One pass over the first layer, 64 units at a time kept in L1: t = base + sum_k (add[k] - sub[k])
 * (the slot sum: into `sums` when given), then plus the contact row and the dense tail when given,
 * and the activations into a0. */
INL void activate64_portable(const int32_t *t, int sh, int32_t half, int32_t cap, int16_t *out) {
    for (int j = 0; j < 64; j++) {
        int32_t v = (t[j] + half) >> sh;
        out[j] = (int16_t)(v < 0 ? 0 : v > cap ? cap : v);
    }
}


INL void accumulate_portable(const QNet *q, const int32_t *base, const int32_t **add, const int32_t **sub, int n,
                             const int32_t *contact, const float *x, int32_t *sums, int16_t *a0) {
    const int h = q->h1p, sh = q->shift1, cap = q->cap1;
    const int32_t half = sh ? (int32_t)1 << (sh - 1) : 0;
    for (int j0 = 0; j0 < h; j0 += 64) { /* h1p is a multiple of 64 */
        int32_t t[64];
        for (int j = 0; j < 64; j++) t[j] = base[j0 + j];
        for (int k = 0; k < n; k++) {
            const int32_t *a = add[k] + j0, *d = sub[k] + j0;
            for (int j = 0; j < 64; j++) t[j] += a[j] - d[j];
        }
        if (sums) memcpy(sums + j0, t, sizeof t);
        if (contact)
            for (int j = 0; j < 64; j++) t[j] += contact[j0 + j];
        if (x) { /* the dense tail: float sums per unit in input order, rounded to nearest */
            float f[64] = {0};
            for (int e = 0; e < q->nx; e++) {
                const float v = x[e];
                if (v == 0.0f) continue;
                const float *w = q->wx + (size_t)e * h + j0;
                for (int j = 0; j < 64; j++) f[j] = f[j] + v * w[j];
            }
            for (int j = 0; j < 64; j++) t[j] += (int32_t)(f[j] + (f[j] >= 0.0f ? 0.5f : -0.5f));
        }
        activate64_portable(t, sh, half, cap, a0 + j0);
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#define LD(p) _mm256_loadu_si256((const __m256i *)(p))
/* The same pass with AVX2: a block's 64 sums stay in eight registers. */
__attribute__((target("avx2"))) static inline void accumulate_avx2(const QNet *q, const int32_t *base,
                                                                   const int32_t **add, const int32_t **sub,
                                                                   int n, const int32_t *contact,
                                                                   const float *x, int32_t *sums,
                                                                   int16_t *a0) {
    const int h = q->h1p, sh = q->shift1, cap = q->cap1;
    const int32_t half = sh ? (int32_t)1 << (sh - 1) : 0;
    for (int j0 = 0; j0 < h; j0 += 64) {
        __m256i t[8];
        for (int r = 0; r < 8; r++) t[r] = LD(base + j0 + 8 * r);
        for (int k = 0; k < n; k++) {
            const int32_t *a = add[k] + j0, *d = sub[k] + j0;
            for (int r = 0; r < 8; r++) t[r] = _mm256_add_epi32(t[r], _mm256_sub_epi32(LD(a + 8 * r), LD(d + 8 * r)));
        }
        if (sums)
            for (int r = 0; r < 8; r++) _mm256_storeu_si256((__m256i *)(sums + j0 + 8 * r), t[r]);
        if (contact)
            for (int r = 0; r < 8; r++) t[r] = _mm256_add_epi32(t[r], LD(contact + j0 + 8 * r));
        if (x) { /* the dense tail: float sums per unit in input order (no fused multiply-add), rounded */
            __m256 f[8];
            for (int r = 0; r < 8; r++) f[r] = _mm256_setzero_ps();
            for (int e = 0; e < q->nx; e++) {
                if (x[e] == 0.0f) continue;
                const __m256 v = _mm256_set1_ps(x[e]);
                const float *w = q->wx + (size_t)e * h + j0;
                for (int r = 0; r < 8; r++) f[r] = _mm256_add_ps(f[r], _mm256_mul_ps(v, _mm256_loadu_ps(w + 8 * r)));
            }
            const __m256 pos = _mm256_set1_ps(0.5f), neg = _mm256_set1_ps(-0.5f), zero = _mm256_setzero_ps();
            for (int r = 0; r < 8; r++) {
                const __m256 ge = _mm256_cmp_ps(f[r], zero, _CMP_GE_OQ);
                const __m256 rounded = _mm256_add_ps(f[r], _mm256_blendv_ps(neg, pos, ge));
                t[r] = _mm256_add_epi32(t[r], _mm256_cvttps_epi32(rounded));
            }
        }
        const __m128i count = _mm_cvtsi32_si128(sh);
        const __m256i hv = _mm256_set1_epi32(half), lo = _mm256_setzero_si256(), hi = _mm256_set1_epi32(cap);
        for (int r = 0; r < 8; r++)
            t[r] = _mm256_min_epi32(_mm256_max_epi32(_mm256_sra_epi32(_mm256_add_epi32(t[r], hv), count), lo), hi);
        for (int r = 0; r < 8; r += 2) /* values in [0, cap]: the pack saturates nothing */
            _mm256_storeu_si256((__m256i *)(a0 + j0 + 8 * r),
                                _mm256_permute4x64_epi64(_mm256_packs_epi32(t[r], t[r + 1]), 0xd8));
    }
}
#undef LD
#define ACCUMULATE(...) (avx2 ? accumulate_avx2(__VA_ARGS__) : accumulate_portable(__VA_ARGS__))
#else
#define ACCUMULATE(...) accumulate_portable(__VA_ARGS__)
#endif

INL void accumulate(const QNet *q, int avx2, const int32_t *base, const int32_t **add, const int32_t **sub, int n,
                    const int32_t *contact, const float *x, int32_t *sums, int16_t *a0) {
    ACCUMULATE(q, base, add, sub, n, contact, x, sums, a0);
}

/* The dense tail of one board (seen from the side on roll) into x; returns the contact flag. */
static int dense_inputs(const QNet *q, const uint8_t *mine, float *x) {
    const uint8_t *theirs = mine + 25;
    int mb = back_of(mine), tb = back_of(theirs);
    int contact = mb >= 0 && tb >= 0 && mb + tb >= 23;
    int k = 0;
    if (q->version >= 2) {
        side_features_fast(mine, theirs, x + k);
        side_features_fast(theirs, mine, x + k + NF);
        k += 2 * NF;
    }
    if (q->version >= 3) {
        side_terms(mine, theirs, x + k);
        side_terms(theirs, mine, x + k + TERMS);
        k += 2 * TERMS;
    }
    if (q->version >= 4) {
        if (q->race) race_terms(mine, theirs, x + k);
        else memset(x + k, 0, 2 * RTERMS * sizeof(float));
    }
    return contact;
}


/* z[o] = b[o] + sum_i in[i] * w[o][i] for o < no (ni a multiple of 16): exact integer sums (each
 * product below 2^30, the sums in int64, so none can overflow). */
INL void dots_portable(const int16_t *in, const int16_t *w, int ni, int no, const int32_t *b, int64_t *z) {
    for (int o = 0; o < no; o++) {
        const int16_t *wr = w + (size_t)o * ni;
        int64_t s = 0;
        for (int i = 0; i < ni; i++) s += (int32_t)in[i] * (int32_t)wr[i];
        z[o] = s + b[o];
    }
}

/* The same sums in int32, for a layer whose sums cannot overflow it (the quantiser checks). */
INL void dots32_portable(const int16_t *in, const int16_t *w, int ni, int no, const int32_t *b, int64_t *z) {
    for (int o = 0; o < no; o++) {
        const int16_t *wr = w + (size_t)o * ni;
        int32_t s = 0;
        for (int i = 0; i < ni; i++) s += (int32_t)in[i] * (int32_t)wr[i];
        z[o] = (int64_t)s + b[o];
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
/* The same sums with AVX2, four outputs at a time: pairs of products in int32 (below 2^31), added
 * in int64 lanes. */
__attribute__((target("avx2"))) static inline __m256i madd64(__m256i acc, __m256i x, const int16_t *w) {
    __m256i p = _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i *)w));
    acc = _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_castsi256_si128(p)));
    return _mm256_add_epi64(acc, _mm256_cvtepi32_epi64(_mm256_extracti128_si256(p, 1)));
}

__attribute__((target("avx2"))) static inline int64_t hsum64(__m256i v) {
    int64_t t[4];
    _mm256_storeu_si256((__m256i *)t, v);
    return t[0] + t[1] + t[2] + t[3];
}

/* An int64-sum layer with AVX2, four outputs at a time (pairs of products below 2^31 widened and
 * added in int64 lanes); int32-sum layers take dots_pairs_avx2. */
__attribute__((target("avx2"))) static inline void dots64_avx2(const int16_t *in, const int16_t *w, int ni, int no,
                                                               const int32_t *b, int64_t *z) {
    int o = 0;
    for (; o + 4 <= no; o += 4) {
        const int16_t *wr[4] = {w + (size_t)o * ni, w + (size_t)(o + 1) * ni, w + (size_t)(o + 2) * ni,
                                w + (size_t)(o + 3) * ni};
        __m256i s[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                        _mm256_setzero_si256()};
        for (int i = 0; i < ni; i += 16) {
            const __m256i x = _mm256_loadu_si256((const __m256i *)(in + i));
            for (int r = 0; r < 4; r++) s[r] = madd64(s[r], x, wr[r] + i);
        }
        for (int r = 0; r < 4; r++) z[o + r] = hsum64(s[r]) + b[o + r];
    }
    if (o < no) dots_portable(in, w + (size_t)o * ni, ni, no - o, b + o, z + o);
}

/* An int32-sum layer with AVX2 from the nonzero input pairs only (clipped ReLU leaves many units at
 * zero): each pair, broadcast, multiplies its row of `wt` ([in/2][outp][2]) into all the outputs'
 * sums at once, 64 outputs (eight registers) a pass.  Integer sums: the same as dots32_portable. */
__attribute__((target("avx2"))) static inline void pair_block(const int32_t *pairs, const int *nz, int m,
                                                              const int16_t *wt, int outp, int ob, int nr,
                                                              __m256i *acc) {
    for (int r = 0; r < nr; r++) acc[r] = _mm256_setzero_si256();
    for (int k = 0; k < m; k++) {
        const __m256i v = _mm256_set1_epi32(pairs[nz[k]]);
        const int16_t *wr = wt + ((size_t)nz[k] * outp + ob) * 2;
        for (int r = 0; r < nr; r++)
            acc[r] = _mm256_add_epi32(acc[r], _mm256_madd_epi16(v, _mm256_load_si256((const __m256i *)(wr + 16 * r))));
    }
}

/* The nonzero int32 pairs of `ni` int16 inputs: their values into `pairs`, their indices into `nz`;
 * returns how many. */
static inline int nonzero_pairs(const int16_t *in, int ni, int32_t *pairs, int *nz) {
    int m = 0;
    memcpy(pairs, in, (size_t)ni * 2);
    for (int p = 0; p < ni / 2; p++) {
        nz[m] = p;
        m += pairs[p] != 0;
    }
    return m;
}

/* The sums of outputs ob.. (up to 64) into acc; returns the registers used (8 outputs each). */
__attribute__((target("avx2"))) static inline int pair_sums64(const int32_t *pairs, const int *nz, int m,
                                                              const int16_t *wt, int outp, int ob, __m256i *acc) {
    const int nr = (outp - ob) / 8 < 8 ? (outp - ob) / 8 : 8;
    switch (nr) { /* constant register counts, so the sums stay in registers */
    case 1: pair_block(pairs, nz, m, wt, outp, ob, 1, acc); break;
    case 2: pair_block(pairs, nz, m, wt, outp, ob, 2, acc); break;
    case 4: pair_block(pairs, nz, m, wt, outp, ob, 4, acc); break;
    case 8: pair_block(pairs, nz, m, wt, outp, ob, 8, acc); break;
    default: pair_block(pairs, nz, m, wt, outp, ob, nr, acc); break;
    }
    return nr;
}

__attribute__((target("avx2"))) static inline void dots_pairs_avx2(const int16_t *in, const int16_t *wt, int ni,
                                                                   int no, int outp, const int32_t *b, int64_t *z) {
    int32_t pairs[MAX_WIDTH / 2 + 8];
    int nz[MAX_WIDTH / 2 + 8];
    const int m = nonzero_pairs(in, ni, pairs, nz);
    for (int ob = 0; ob < outp; ob += 64) {
        __m256i acc[8];
        const int nr = pair_sums64(pairs, nz, m, wt, outp, ob, acc);
        int32_t t[64];
        for (int r = 0; r < nr; r++) _mm256_storeu_si256((__m256i *)(t + 8 * r), acc[r]);
        for (int j = 0; j < 8 * nr && ob + j < no; j++) z[ob + j] = (int64_t)t[j] + b[ob + j];
    }
}

/* A hidden int32-sum layer with AVX2, sums and activations at once: round(sum / 2^shift) as
 * (sum >> shift) + bit (shift - 1) of the sum (no overflow near 2^31), clamped to [0, cap]; the
 * same values as finish's int64 path.  Writes q->in[l + 1] activations (zeros past the outputs). */
__attribute__((target("avx2"))) static inline void layer_pairs_avx2(const QNet *q, int l, const int16_t *in,
                                                                    int16_t *nxt) {
    const int outp = q->outp[l];
    int32_t pairs[MAX_WIDTH / 2 + 8];
    int nz[MAX_WIDTH / 2 + 8];
    const int m = nonzero_pairs(in, q->in[l], pairs, nz);
    const int32_t *act = q->act[l];
    const __m256i one = _mm256_set1_epi32(1), lo = _mm256_setzero_si256(), hi = _mm256_set1_epi32(q->cap[l]);
    for (int ob = 0; ob < outp; ob += 64) {
        __m256i acc[8];
        const int nr = pair_sums64(pairs, nz, m, q->wt[l], outp, ob, acc);
        for (int r = 0; r < nr; r++) {
            const int o = ob + 8 * r;
#define LDA(k) _mm256_loadu_si256((const __m256i *)(act + (k) * outp + o))
            const __m256i z = _mm256_add_epi32(acc[r], LDA(0));
            const __m256i half = _mm256_and_si256(_mm256_srav_epi32(z, LDA(2)), LDA(3));
            __m256i t = _mm256_add_epi32(_mm256_srav_epi32(z, LDA(1)), _mm256_and_si256(half, one));
#undef LDA
            t = _mm256_min_epi32(_mm256_max_epi32(t, lo), hi);
            const __m128i packed = _mm_packs_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
            _mm_storeu_si128((__m128i *)(nxt + o), packed);
        }
    }
    for (int o = outp; o < q->in[l + 1]; o++) nxt[o] = 0;
}

#define DOTS(l, in, ni, no, z)                                                                              \
    (avx2 ? (q->wide[l] ? dots64_avx2(in, q->w[l], ni, no, q->b[l], z)                                      \
                        : dots_pairs_avx2(in, q->wt[l], ni, no, q->outp[l], q->b[l], z))                     \
          : (q->wide[l] ? dots_portable(in, q->w[l], ni, no, q->b[l], z) : dots32_portable(in, q->w[l], ni, no, q->b[l], z)))
#else
#define DOTS(l, in, ni, no, z)                                                                              \
    (q->wide[l] ? dots_portable(in, q->w[l], ni, no, q->b[l], z) : dots32_portable(in, q->w[l], ni, no, q->b[l], z))
#endif

static float sigmoid_f(float z) { return 1.0f / (1.0f + expf(-z)); }

/* From the first layer's activations a0: the later layers and the five probabilities. */
INL void finish(const QNet *q, int avx2, int16_t *a0, int16_t *a1, int64_t *z, const float *x, float *fs,
                double *outp) {
    int16_t *in = a0, *nxt = a1;
    for (int l = 0; l < q->nl; l++) {
        const int ni = q->in[l], no = q->out[l];
#if defined(__GNUC__) && defined(__x86_64__)
        if (avx2 && !q->wide[l] && l + 1 < q->nl && !(l == 0 && q->late)) {
            layer_pairs_avx2(q, l, in, nxt);
            int16_t *tmp = in;
            in = nxt;
            nxt = tmp;
            continue;
        }
#endif
        DOTS(l, in, ni, no, z);
        if (l == 0 && q->late) { /* the dense tail: float sums per output in input order, rounded */
            for (int o = 0; o < no; o++) fs[o] = 0.0f;
            for (int e = 0; e < q->nx; e++) {
                const float v = x[e];
                if (v == 0.0f) continue;
                const float *w = q->wl + (size_t)e * no;
                for (int o = 0; o < no; o++) fs[o] += v * w[o];
            }
            for (int o = 0; o < no; o++) z[o] += (int64_t)(fs[o] + (fs[o] >= 0.0f ? 0.5f : -0.5f));
        }
        if (l + 1 == q->nl) break;
        const int lc = q->cap[l];
        const uint8_t *ls = q->shift[l];
        for (int o = 0; o < no; o++) {
            const int64_t lh = ls[o] ? (int64_t)1 << (ls[o] - 1) : 0;
            int64_t t = (z[o] + lh) >> ls[o];
            nxt[o] = (int16_t)(t < 0 ? 0 : t > lc ? lc : t);
        }
        for (int o = no; o < q->in[l + 1]; o++) nxt[o] = 0;
        int16_t *tmp = in;
        in = nxt;
        nxt = tmp;
    }
    const uint8_t *hs = q->shift[q->nl - 1];
    float c[5];
    for (int o = 0; o < 5; o++) c[o] = sigmoid_f((float)((double)z[o] * ldexp(1.0, -hs[o])));
    float win = c[0], wg = win * c[1], wbg = wg * c[2], lg = (1.0f - win) * c[3], lbg = lg * c[4];
    outp[0] = win;
    outp[1] = wg;
    outp[2] = wbg;
    outp[3] = lg;
    outp[4] = lbg;
}

/* Scratch memory of one call. */
typedef struct {
    int32_t *base;
    int64_t *z;
    float *fs, *x;
    int16_t *a0, *a1;
    const int32_t *add[64], *sub[64]; /* the rows of one board: at most 50 */
} Work;

static int work_alloc(const QNet *q, Work *w) {
    size_t h = (size_t)q->h1p, wide = (size_t)(q->widest > q->h1p ? q->widest : q->h1p) + 16;
    w->base = aligned_alloc(64, (h * 4 + 63) / 64 * 64);
    w->fs = aligned_alloc(64, (wide * 4 + 63) / 64 * 64); /* the first layer, or a late tail's outputs */
    w->z = aligned_alloc(64, (wide * 8 + 63) / 64 * 64);
    w->a0 = aligned_alloc(64, (wide * 2 + 63) / 64 * 64);
    w->a1 = aligned_alloc(64, (wide * 2 + 63) / 64 * 64);
    w->x = malloc(64 * sizeof(float)); /* the dense tail: at most 36 */
    if (!w->base || !w->fs || !w->z || !w->a0 || !w->a1 || !w->x) return -1;
    memset(w->a0, 0, wide * 2);
    memset(w->a1, 0, wide * 2);
    return 0;
}

static void work_free(Work *w) {
    free(w->base);
    free(w->fs);
    free(w->z);
    free(w->a0);
    free(w->a1);
    free(w->x);
}

/* One board's probabilities from its first-layer base and row list (the dense tail from the board). */
#define BOARD_OUT(base, n, b, outp)                                                                      \
    do {                                                                                                 \
        int contact_ = dense_inputs(q, b, w->x);                                                         \
        const int early_ = q->nx && !q->late;                                                            \
        accumulate(q, AVX, base, w->add, w->sub, n, contact_ ? q->contact_row : NULL, early_ ? w->x : NULL,   \
                   NULL, w->a0);                                                                         \
        finish(q, AVX, w->a0, w->a1, w->z, w->x, w->fs, outp);                                           \
    } while (0)

/* The kernels, one body compiled twice: for AVX2 and for the baseline CPU. */
#define KERNELS(SUFFIX, ATTR)                                                                            \
    ATTR static void evaluate_##SUFFIX(const QNet *q, const uint8_t *boards, Py_ssize_t n, double *out,  \
                                       Work *w) {                                                       \
        for (Py_ssize_t i = 0; i < n; i++) {                                                             \
            const uint8_t *b = boards + 50 * i;                                                          \
            int k = scratch_rows(q, b, b + 25, w->add, w->sub);                                          \
            BOARD_OUT(q->bias1, k, b, out + 5 * i);                                                      \
        }                                                                                                \
    }                                                                                                    \
    ATTR static void children_##SUFFIX(const QNet *q, const uint8_t *parents, const int32_t *index,         \
                                       const uint8_t *boards, Py_ssize_t n, double *out, Work *w,       \
                                       int32_t *sums) {                                                 \
        /* boards[i]: a play of the side on roll in parents[index[i]], seen by the opponent (on roll    \
         * next): its side 0 was the parent's side 1 */                                                 \
        int32_t current = -1;                                                                           \
        for (Py_ssize_t i = 0; i < n; i++) {                                                             \
            const uint8_t *b = boards + 50 * i, *parent = parents + 50 * (size_t)index[i];              \
            if (index[i] != current) { /* a new parent: its sum, unless it is the last one's board */   \
                if (current < 0 || memcmp(parent, parents + 50 * (size_t)current, 50)) {                \
                    int k = scratch_rows(q, parent + 25, parent, w->add, w->sub);                        \
                    accumulate(q, AVX, q->bias1, w->add, w->sub, k, NULL, NULL, w->base, w->a0);              \
                }                                                                                        \
                current = index[i];                                                                      \
            }                                                                                            \
            int k = change_rows(q, 0, parent + 25, b, w->add, w->sub, 0);                                \
            k = change_rows(q, 1, parent, b + 25, w->add, w->sub, k);                                    \
            if (sums)                                                                                    \
                accumulate(q, AVX, w->base, w->add, w->sub, k, NULL, NULL, sums + (size_t)i * q->h1p, w->a0); \
            else                                                                                         \
                BOARD_OUT(w->base, k, b, out + 5 * i);                                                   \
        }                                                                                                \
    }                                                                                                    \
    ATTR static void sums_##SUFFIX(const QNet *q, const uint8_t *boards, Py_ssize_t n, int32_t *sums,    \
                                   Work *w) {                                                           \
        for (Py_ssize_t i = 0; i < n; i++) {                                                             \
            const uint8_t *b = boards + 50 * i;                                                          \
            int k = scratch_rows(q, b, b + 25, w->add, w->sub);                                          \
            accumulate(q, AVX, q->bias1, w->add, w->sub, k, NULL, NULL, sums + (size_t)i * q->h1p, w->a0);    \
        }                                                                                                \
    }

#if defined(__GNUC__) && defined(__x86_64__)
#define AVX 1
KERNELS(avx2, __attribute__((target("avx2"))))
#undef AVX
#define HAVE_AVX2 1
#else
#define HAVE_AVX2 0
#endif
#define AVX 0
KERNELS(portable, )
#undef AVX

static void run_evaluate(const QNet *q, const uint8_t *b, Py_ssize_t n, double *out, Work *w) {
#if HAVE_AVX2
    if (use_avx2) return evaluate_avx2(q, b, n, out, w);
#endif
    evaluate_portable(q, b, n, out, w);
}

static void run_children(const QNet *q, const uint8_t *p, const int32_t *index, const uint8_t *b, Py_ssize_t n,
                         double *out, Work *w, int32_t *sums) {
#if HAVE_AVX2
    if (use_avx2) return children_avx2(q, p, index, b, n, out, w, sums);
#endif
    children_portable(q, p, index, b, n, out, w, sums);
}

static void run_sums(const QNet *q, const uint8_t *b, Py_ssize_t n, int32_t *sums, Work *w) {
#if HAVE_AVX2
    if (use_avx2) return sums_avx2(q, b, n, sums, w);
#endif
    sums_portable(q, b, n, sums, w);
}

/* ---- Python ------------------------------------------------------------------------------ */

static const char *take_layer(QNet *q, int l, PyObject *item, int in_width) {
    Py_buffer wb, bb, sb;
    int cap, wide;
    if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "y*y*y*ip", &wb, &bb, &sb, &cap, &wide))
        return "each layer is a (w, b, shifts, cap, wide) tuple";
    const char *err = NULL;
    Py_ssize_t no = bb.len / 4, ni = (in_width + 15) / 16 * 16;
    if (bb.len % 4 || no < 1 || no > MAX_WIDTH) err = "bad layer width";
    else if (wb.len != no * ni * 2) err = "a layer's weight has the wrong size (out x in padded to 16, int16)";
    else if (sb.len != no || cap < 0 || cap > 32767) err = "bad shifts or cap";
    for (Py_ssize_t o = 0; !err && o < no; o++)
        if (((const uint8_t *)sb.buf)[o] > 30) err = "a shift is at most 30";
    if (!err) {
        q->in[l] = (int)ni;
        q->out[l] = (int)no;
        q->cap[l] = cap;
        q->wide[l] = wide;
        q->w[l] = aligned_copy(&wb);
        q->b[l] = aligned_copy(&bb);
        q->shift[l] = aligned_copy(&sb);
        if (!q->w[l] || !q->b[l] || !q->shift[l]) err = "out of memory";
        if (!err && !wide) { /* the same weights by input pairs, for the AVX2 kernel's sparse sums */
            const int outp = (int)(no + 7) / 8 * 8;
            q->outp[l] = outp;
            q->wt[l] = aligned_alloc(64, ((size_t)ni * outp * 2 + 63) / 64 * 64);
            q->act[l] = calloc((size_t)4 * outp, sizeof(int32_t));
            if (!q->wt[l] || !q->act[l]) err = "out of memory";
            else {
                for (Py_ssize_t o = 0; o < no; o++) {
                    const int sh = ((const uint8_t *)sb.buf)[o];
                    q->act[l][o] = ((const int32_t *)bb.buf)[o];
                    q->act[l][outp + o] = sh;
                    q->act[l][2 * outp + o] = sh ? sh - 1 : 0;
                    q->act[l][3 * outp + o] = sh > 0;
                }
                memset(q->wt[l], 0, (size_t)ni * outp * 2);
                for (Py_ssize_t o = 0; o < no; o++)
                    for (Py_ssize_t i = 0; i < ni; i++)
                        q->wt[l][((size_t)(i / 2) * outp + o) * 2 + i % 2] = q->w[l][(size_t)o * ni + i];
            }
        }
        if (no > q->widest) q->widest = (int)no;
        if (ni > q->widest) q->widest = (int)ni;
    }
    PyBuffer_Release(&wb);
    PyBuffer_Release(&bb);
    PyBuffer_Release(&sb);
    return err;
}

static PyObject *f_make(PyObject *self, PyObject *args) {
    int h1, version, shift1, cap1;
    Py_buffer rows, bias1, contact, wx, wl = {0};
    PyObject *layers;
    if (!PyArg_ParseTuple(args, "iy*y*y*iy*iiO|y*", &h1, &rows, &bias1, &contact, &version, &wx, &shift1, &cap1,
                          &layers, &wl))
        return NULL;
    const char *err = NULL;
    QNet *q = calloc(1, sizeof(QNet));
    PyObject *seq = NULL, *cap = NULL;
    if (!q) {
        PyErr_NoMemory();
        goto done;
    }
    q->h1 = h1;
    q->h1p = (h1 + 63) / 64 * 64; /* whole blocks of 64 units */
    q->version = version;
    q->nx = features_of(version) ? features_of(version) - BASE : -1;
    if (h1 < 1 || h1 > MAX_WIDTH) err = "bad first-layer width";
    else if (q->nx < 0) err = "the dense tail is that of encoding 1 to 4";
    else if (contact.len != (Py_ssize_t)q->h1p * 4) err = "contact has the wrong size";
    else if (rows.len != (Py_ssize_t)2 * SLOTS * COUNTS * q->h1p * 4) err = "rows has the wrong size";
    else if (bias1.len != (Py_ssize_t)q->h1p * 4) err = "bias1 has the wrong size";
    else if (wl.buf && wl.len && wx.len) err = "the dense tail goes to the first layer (wx) or late (wl), not both";
    else if (!(wl.buf && wl.len) && wx.len != (Py_ssize_t)q->nx * q->h1p * 4) err = "wx has the wrong size";
    else if (shift1 < 0 || shift1 > 30 || cap1 < 0 || cap1 > 32767) err = "bad shift1 or cap1";
    if (err) goto fail;
    if (version >= 4 && !rolls_reach && build_reach() < 0) {
        err = "out of memory for the v4 tables";
        goto fail;
    }
    q->shift1 = shift1;
    q->cap1 = cap1;
    q->rows = aligned_copy(&rows);
    q->bias1 = aligned_copy(&bias1);
    q->contact_row = aligned_copy(&contact);
    q->zero = calloc((size_t)q->h1p, sizeof(int32_t));
    q->wx = aligned_copy(&wx);
    if (!q->rows || !q->bias1 || !q->contact_row || !q->zero || !q->wx) {
        err = "out of memory";
        goto fail;
    }
    seq = PySequence_Fast(layers, "layers must be a sequence");
    if (!seq) goto done;
    Py_ssize_t nl = PySequence_Fast_GET_SIZE(seq);
    if (nl < 1 || nl > MAX_QLAYERS) {
        err = "1 to 4 later layers (the head last)";
        goto fail;
    }
    q->widest = q->h1p;
    int width = q->h1p;
    for (Py_ssize_t l = 0; l < nl; l++) {
        err = take_layer(q, (int)l, PySequence_Fast_GET_ITEM(seq, l), width);
        q->nl = (int)l + (q->w[l] != NULL);
        if (err) goto fail;
        width = q->out[l];
    }
    if (q->out[nl - 1] != 5) {
        err = "the head has five outputs";
        goto fail;
    }
    if (wl.buf && wl.len) {
        if (nl < 2 || wl.len != (Py_ssize_t)q->nx * q->out[0] * 4) {
            err = "wl has the wrong size (nx x the first later layer's width), or there is no hidden layer for it";
            goto fail;
        }
        q->late = 1;
        q->wl = aligned_copy(&wl);
        if (!q->wl) {
            err = "out of memory";
            goto fail;
        }
    }
    q->race = 0;
    if (version >= 4) { /* v4's race terms, the tail's last inputs: any weight on them? */
        const float *wd = q->late ? q->wl : q->wx;
        const size_t per = q->late ? (size_t)q->out[0] : (size_t)q->h1p;
        for (size_t e = (size_t)(q->nx - 2 * RTERMS) * per; e < (size_t)q->nx * per; e++) q->race |= wd[e] != 0.0f;
    }
    cap = PyCapsule_New(q, "pulvezar.qnet", qnet_free);
    if (cap) q = NULL;
    goto done;
fail:
    if (err) PyErr_SetString(PyExc_ValueError, err);
done:
    if (q) qnet_destroy(q);
    Py_XDECREF(seq);
    PyBuffer_Release(&rows);
    PyBuffer_Release(&bias1);
    PyBuffer_Release(&contact);
    PyBuffer_Release(&wx);
    if (wl.buf) PyBuffer_Release(&wl);
    return cap;
}

static QNet *qnet_of(PyObject *cap) {
    QNet *q = PyCapsule_GetPointer(cap, "pulvezar.qnet");
    if (q && q->version >= 4 && q->race && !bo_off) {
        PyErr_SetString(PyExc_ValueError, "encoding v4 needs the bear-off tables: call set_bearoff first");
        return NULL;
    }
    return q;
}

static const char *check_board_bytes(const uint8_t *b, Py_ssize_t len) {
    if (len % 50) return "boards must be a multiple of 50 bytes";
    for (Py_ssize_t i = 0; i < len; i += 50) {
        int m = 0, t = 0;
        for (int s = 0; s < 25; s++) {
            m += b[i + s];
            t += b[i + 25 + s];
        }
        if (m > 15 || t > 15) return "a side has more than 15 checkers";
    }
    return NULL;
}

static PyObject *f_evaluate(PyObject *self, PyObject *args) {
    PyObject *cap;
    Py_buffer boards, out;
    if (!PyArg_ParseTuple(args, "Oy*w*", &cap, &boards, &out)) return NULL;
    PyObject *res = NULL;
    QNet *q = qnet_of(cap);
    Work w = {0};
    const char *err = NULL;
    Py_ssize_t n = boards.len / 50;
    if (!q) goto done;
    if ((err = check_board_bytes(boards.buf, boards.len))) goto fail;
    if (out.len != n * 5 * (Py_ssize_t)sizeof(double)) {
        err = "out has the wrong size";
        goto fail;
    }
    if (work_alloc(q, &w) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS run_evaluate(q, boards.buf, n, out.buf, &w);
    Py_END_ALLOW_THREADS res = Py_None;
    Py_INCREF(res);
    goto done;
fail:
    PyErr_SetString(PyExc_ValueError, err);
done:
    work_free(&w);
    PyBuffer_Release(&boards);
    PyBuffer_Release(&out);
    return res;
}

static PyObject *children_call(PyObject *args, int want_sums) {
    PyObject *cap;
    Py_buffer parents, index, boards, out = {0};
    int ok = want_sums ? PyArg_ParseTuple(args, "Oy*y*y*", &cap, &parents, &index, &boards)
                       : PyArg_ParseTuple(args, "Oy*y*y*w*", &cap, &parents, &index, &boards, &out);
    if (!ok) return NULL;
    PyObject *res = NULL;
    QNet *q = qnet_of(cap);
    Work w = {0};
    const char *err = NULL;
    Py_ssize_t n = boards.len / 50, np_ = parents.len / 50;
    if (!q) goto done;
    if ((err = check_board_bytes(boards.buf, boards.len)) || (err = check_board_bytes(parents.buf, parents.len)))
        goto fail;
    if (index.len != n * 4) err = "index must hold one int32 per board";
    else if (!want_sums && out.len != n * 5 * (Py_ssize_t)sizeof(double)) err = "out has the wrong size";
    for (Py_ssize_t i = 0; !err && i < n; i++) {
        int32_t k = ((const int32_t *)index.buf)[i];
        if (k < 0 || k >= np_) err = "an index is not that of a parent";
    }
    if (err) goto fail;
    if (work_alloc(q, &w) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (want_sums) {
        res = PyBytes_FromStringAndSize(NULL, n * q->h1p * 4);
        if (!res) goto done;
        int32_t *sums = (int32_t *)PyBytes_AS_STRING(res);
        run_children(q, parents.buf, index.buf, boards.buf, n, NULL, &w, sums);
    } else {
        Py_BEGIN_ALLOW_THREADS run_children(q, parents.buf, index.buf, boards.buf, n, out.buf, &w, NULL);
        Py_END_ALLOW_THREADS res = Py_None;
        Py_INCREF(res);
    }
    goto done;
fail:
    PyErr_SetString(PyExc_ValueError, err);
done:
    work_free(&w);
    PyBuffer_Release(&parents);
    PyBuffer_Release(&index);
    PyBuffer_Release(&boards);
    if (!want_sums) PyBuffer_Release(&out);
    return res;
}

static PyObject *f_children(PyObject *self, PyObject *args) { return children_call(args, 0); }
static PyObject *f_child_sums(PyObject *self, PyObject *args) { return children_call(args, 1); }

static PyObject *f_sums(PyObject *self, PyObject *args) {
    PyObject *cap;
    Py_buffer boards;
    if (!PyArg_ParseTuple(args, "Oy*", &cap, &boards)) return NULL;
    PyObject *res = NULL;
    QNet *q = qnet_of(cap);
    const char *err;
    if (q) {
        if ((err = check_board_bytes(boards.buf, boards.len))) PyErr_SetString(PyExc_ValueError, err);
        else {
            Py_ssize_t n = boards.len / 50;
            Work w = {0};
            if (work_alloc(q, &w) < 0) PyErr_NoMemory();
            else {
                res = PyBytes_FromStringAndSize(NULL, n * q->h1p * 4);
                if (res) run_sums(q, boards.buf, n, (int32_t *)PyBytes_AS_STRING(res), &w);
            }
            work_free(&w);
        }
    }
    PyBuffer_Release(&boards);
    return res;
}

static int cpu_avx2(void) {
#if HAVE_AVX2
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

static PyObject *f_simd(PyObject *self, PyObject *args) {
    int level = -1;
    if (!PyArg_ParseTuple(args, "|i", &level)) return NULL;
    if (level == 1 && !cpu_avx2()) {
        PyErr_SetString(PyExc_ValueError, "this CPU has no AVX2");
        return NULL;
    }
    if (level == 0 || level == 1) use_avx2 = level;
    else if (level != -1) {
        PyErr_SetString(PyExc_ValueError, "level is 0 (portable) or 1 (AVX2)");
        return NULL;
    }
    return PyLong_FromLong(use_avx2);
}

static PyMethodDef qnet_methods[] = {
    {"make", f_make, METH_VARARGS, "make(h1, rows, bias1, contact, version, wx, shift1, cap1, layers[, wl]) -> a quantised net"},
    {"evaluate", f_evaluate, METH_VARARGS, "evaluate(net, boards, out): probabilities, each board from scratch"},
    {"children", f_children, METH_VARARGS,
     "children(net, parents, index, boards, out): probabilities of plays, updated from their parents"},
    {"sums", f_sums, METH_VARARGS, "sums(net, boards) -> int32 bytes: first-layer slot sums from scratch"},
    {"child_sums", f_child_sums, METH_VARARGS,
     "child_sums(net, parents, index, boards) -> int32 bytes: the plays' slot sums, updated"},
    {"simd", f_simd, METH_VARARGS, "simd([level]) -> the kernel in use: 1 AVX2, 0 portable"},
    {"set_bearoff", f_set_bearoff, METH_VARARGS,
     "set_bearoff(off, first, positions, slots): the one-sided database for encoding v4's terms"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef qnet_module = {PyModuleDef_HEAD_INIT, "_qnet",
                                         "Quantised nets with an incrementally updated first layer.", -1,
                                         qnet_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__qnet(void) {
    use_avx2 = cpu_avx2();
    PyObject *m = PyModule_Create(&qnet_module);
    if (m) {
        PyModule_AddIntConstant(m, "SLOTS", SLOTS);
        PyModule_AddIntConstant(m, "COUNTS", COUNTS);
        PyModule_AddIntConstant(m, "BASE", BASE);
        PyModule_AddIntConstant(m, "MAX_LAYERS", MAX_QLAYERS);
    }
    return m;
}
