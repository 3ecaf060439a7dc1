/*
 * pulvezar.eval._forward: the encoding and the forward pass of a ValueNet in C, for CPU
 * evaluation of large batches (rollouts, search).
 *
 * forward(boards, version, layers, head_w, head_b, out)
 *
 *   boards  bytes of N*50 uint8 (25 counts of the player on roll, then 25 of the
 *           opponent, each in its owner's numbering, index 24 = bar)
 *   version the encoding: 1, 2 (v1 and the hand-made features of _features.c), 3
 *           (v2 and the race and contact terms of encoding.race_contact_terms) or 4 (v3 and
 *           the race-outcome terms of race_terms; needs set_bearoff first)
 *   layers  the hidden layers (ReLU after each), a sequence of (wt, b) pairs: wt float32
 *           (inputs, width), the layer's weight transposed, b float32 (width); the first
 *           layer's inputs are the encoding's F (204 for v1, 214 for v2, 232 for v3), a
 *           later layer's the width before it; at most MAX_LAYERS layers of at most
 *           MAX_WIDTH units
 *   head_w  float32 (5, width of the last layer), head_b float32 (5)
 *   out     a writable buffer of N*5 float64: win, win gammon, win backgammon,
 *           lose gammon, lose backgammon
 *
 * The encoding is encoding.py's, computed in the same float32 arithmetic (the v3 terms in
 * float64 and rounded to float32, as numpy does); encode(boards, version) gives it whole,
 * features(boards) the hand-made features as _features.features does, terms(boards) the v3
 * terms.  The inputs are sparse (about 44 of 214 are not zero), so the first layer adds the
 * weight rows of the non-zero inputs only, in input order; a later layer likewise adds the
 * rows of its non-zero (after ReLU) inputs, in unit order.  A board's result therefore does
 * not depend on the batch it is in.  The sums run in another order than PyTorch's, so values
 * agree with the PyTorch net to float32 rounding (about 1e-7), not bit for bit.
 *
 * flags(boards, two_points, two_max) classifies boards in one pass (finished,
 * bear-off tables, contact, crashed) for the evaluator's routing and the rollouts' stops.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The hand-made features of encoding v2: _features.c's code, included so that the forward pass
 * computes them per board without a second pass (its own module init comes along, unused here),
 * computed faster from bitmasks (side_features_fast below, tested equal to them). */
#include "_features.c"

#define PER_SIDE 101
#define BASE (2 * PER_SIDE + 2)
#define TERMS 9 /* encoding v3's race and contact terms per side */
#define F3 (BASE + 2 * NF + 2 * TERMS)
#define RTERMS 4 /* encoding v4's race-outcome terms per side */
#define MAXF (F3 + 2 * RTERMS)
#define MAX_LAYERS 8
#define MAX_WIDTH 4096

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

/* Non-zero inputs of encoding v1 for one side: indices (offset by base) and values. */
static int encode_side(const uint8_t *c, int base, int *idx, float *val, float *pips_out) {
    int k = 0, total = 0, pips = 0, blots = 0, home = 0;
    for (int p = 0; p < 24; p++) {
        int n = c[p];
        total += n;
        pips += n * (p + 1);
        if (n >= 1) {
            idx[k] = base + 4 * p;
            val[k++] = 1.0f;
        }
        if (n >= 2) {
            idx[k] = base + 4 * p + 1;
            val[k++] = 1.0f;
        }
        if (n >= 3) {
            idx[k] = base + 4 * p + 2;
            val[k++] = 1.0f;
        }
        if (n > 3) {
            idx[k] = base + 4 * p + 3;
            val[k++] = ((float)n - 3.0f) / 2.0f;
        }
        if (p >= 6 && n == 1) blots++;
        if (p < 6 && n >= 2) home++;
    }
    int bar = c[24];
    total += bar;
    pips += 25 * bar;
    if (bar) {
        idx[k] = base + 96;
        val[k++] = (float)bar / 2.0f;
    }
    if (total != 15) {
        idx[k] = base + 97;
        val[k++] = (15.0f - (float)total) / 15.0f;
    }
    float pf = (float)pips / 100.0f;
    *pips_out = pf;
    if (pips) {
        idx[k] = base + 98;
        val[k++] = pf;
    }
    if (blots) {
        idx[k] = base + 99;
        val[k++] = (float)((double)blots / 5.0);
    }
    if (home) {
        idx[k] = base + 100;
        val[k++] = (float)((double)home / 6.0);
    }
    return k;
}

/* One side S's checkers and the other side O's, as bitmasks of S's points 1..24 (bit p = point p; O's
 * point 25 - p is S's point p), and both bars. */
typedef struct {
    uint32_t made_s, blot_s, occ_o, made_o;
    int bar_s, bar_o, rear_s;
} Masks;

static void side_masks(const uint8_t *self, const uint8_t *other, Masks *m) {
    uint32_t occ_s = 0, made_s = 0, blot_s = 0, occ_o = 0, made_o = 0;
    for (int p = 1; p <= 24; p++) {
        const int c = self[p - 1], d = other[24 - p];
        occ_s |= (uint32_t)(c > 0) << p;
        made_s |= (uint32_t)(c >= 2) << p;
        blot_s |= (uint32_t)(c == 1) << p;
        occ_o |= (uint32_t)(d > 0) << p;
        made_o |= (uint32_t)(d >= 2) << p;
    }
    m->made_s = made_s;
    m->blot_s = blot_s;
    m->occ_o = occ_o;
    m->made_o = made_o;
    m->bar_s = self[24];
    m->bar_o = other[24];
    m->rear_s = self[24] ? 25 : occ_s ? 31 - __builtin_clz(occ_s) : 0; /* rearmost(): 25 = the bar */
}

/* shots() of _features.c with bitmasks: for each roll, the points O's checkers reach from all its sources
 * at once, direct, combined through an open point, and by doubles step by step over open points; with
 * several O checkers on the bar only the entering move.  The same count. */
static double shots_bits(const Masks *m) {
    const uint32_t m24 = 0x1FFFFFEu; /* points 1..24 */
    const uint32_t blots = m->blot_s;
    if (!blots) return 0.0;
    const uint32_t src = m->bar_o ? 1u : m->occ_o & 0xFFFFFEu; /* on the bar O must enter first */
    const uint32_t open = ~m->made_s & m24;
    const int several = m->bar_o > 1;
    int count = 0;
    for (int d1 = 1; d1 <= 6; d1++) {
        const uint32_t a = (src << d1) & m24;
        uint32_t cur = src, hit = 0; /* doubles: up to four steps, each landing on an open point */
        for (int k = 0; k < (several ? 1 : 4) && cur; k++) {
            cur = (cur << d1) & open;
            hit |= cur & blots;
        }
        if (hit) count += 1;
        for (int d2 = d1 + 1; d2 <= 6; d2++) {
            const uint32_t b = (src << d2) & m24;
            uint32_t h = (a | b) & blots;
            if (!several) h |= ((((a & open) << d2) | ((b & open) << d1)) & m24) & blots;
            if (h) count += 2;
        }
    }
    return count / 36.0;
}

/* The longest run of set bits. */
static int longest_run_bits(uint32_t x) {
    int n = 0;
    for (; x; n++) x &= x << 1;
    return n;
}

/* escapes() of _features.c on O's made points as a bitmask. */
static double escapes_bits(uint32_t made_o, int r) {
    const int lo = r - 12 < 1 ? 1 : r - 12;
    const uint32_t window = made_o & (uint32_t)(((1ull << r) - 1) & ~((1ull << lo) - 1)); /* points lo..r-1 */
    if (!window) return 1.0;
    const int last = __builtin_ctz(window);
    int count = 0;
    for (int d1 = 1; d1 <= 6; d1++)
        for (int d2 = d1; d2 <= 6; d2++) {
            int ok = 0;
            const int steps = d1 == d2 ? 4 : 2;
            for (int order = 0; order < (d1 == d2 ? 1 : 2) && !ok; order++) {
                int at = r;
                for (int k = 0; k < steps; k++) {
                    const int d = (d1 == d2) ? d1 : ((k == 0) ^ order ? d1 : d2);
                    const int to = at - d;
                    if (to >= 1 && (made_o >> to & 1u)) break;
                    at = to;
                    if (at < last) {
                        ok = 1;
                        break;
                    }
                }
            }
            if (ok) count += d1 == d2 ? 1 : 2;
        }
    return count / 36.0;
}

/* side_features() of _features.c from bitmasks: the same five values, bit for bit. */
static void side_features_fast(const uint8_t *self, const uint8_t *other, float *out) {
    Masks m;
    side_masks(self, other, &m);
    const int r = m.rear_s;
    out[0] = (float)shots_bits(&m);
    out[1] = (float)(longest_run_bits(m.made_s) / 6.0);
    out[2] = (float)(r ? longest_run_bits(m.made_o & (uint32_t)(((1ull << r) - 1) & ~1ull)) / 6.0 : 0.0);
    out[3] = (float)(__builtin_popcount(m.made_s & 0x1F80000u) / 3.0); /* points 19..24 */
    out[4] = (float)(r ? escapes_bits(m.made_o, r) : 0.0);
}

static int back_of(const uint8_t *c) {
    for (int i = 24; i >= 0; i--)
        if (c[i]) return i;
    return -1;
}

/* The nine v3 terms of side s against o (each 25 counts in its owner's numbering), as
 * encoding._terms computes them: integer counts, divided in float64, rounded to float32. */
static void side_terms(const uint8_t *s, const uint8_t *o, float *out) {
    int total = 0, outside = 0, to_home = 0, in_opp_home = 0, out_of_bg = 0, back = 0;
    for (int i = 0; i < 25; i++) {
        int n = s[i];
        if (!n) continue;
        total += n;
        back = i + 1;
        if (i >= 6) {
            outside += n;
            to_home += n * (i + 1 - 6);
        }
        if (i >= 18) {
            in_opp_home += n;
            out_of_bg += n * (i + 1 - 18);
        }
    }
    int lowest = 6; /* the lowest occupied home point, 6 if none */
    for (int i = 0; i < 6; i++)
        if (s[i]) {
            lowest = i + 1;
            break;
        }
    int ahead = 25; /* 25 - o's rearmost point: on s's points, the checker s must pass */
    for (int i = 24; i >= 0; i--)
        if (o[i]) {
            ahead = 25 - (i + 1);
            break;
        }
    int to_pass = 0;
    for (int i = ahead; i < 25; i++) to_pass += s[i] * (i + 1 - ahead);
    int closed = 0;
    for (int i = 0; i < 6; i++) closed += o[i] >= 2;
    int off_any = total < 15;
    int first_off = off_any ? 0 : to_home + lowest;
    double c = closed / 6.0;
    out[0] = off_any ? 1.0f : 0.0f;
    out[1] = (float)(outside / 15.0);
    out[2] = (float)(to_home / 60.0);
    out[3] = (float)(in_opp_home / 5.0);
    out[4] = (float)(first_off / 60.0);
    out[5] = (float)(out_of_bg / 20.0);
    out[6] = (float)(back / 25.0);
    out[7] = (float)(to_pass / 100.0);
    out[8] = (float)(s[24] > 0 ? c * c : 0.0);
}

/* ---- encoding v4: race outcomes from roll-count distributions ------------------------------
 *
 * Per side, the distributions of the rolls it needs to bear off every checker and to bear off its
 * first one: exact from the one-sided bear-off database (set_bearoff) when the side has every
 * checker on its home points, otherwise from rolls_reach, the chance that k rolls bring at least p pips
 * in at least d dice (to bear off every checker: its pips, in at least ceil(q / 6) dice for a
 * checker on point q; to bear off its first: the pips to bring every checker home and to bear off
 * the lowest, in ceil((q - 6) / 6) dice per outside checker and one more).  Two sides' distributions give
 * the chance that a side finishes before the other (who rolls first matters) and that it finishes
 * before the other has a first checker off (a gammon). */
#define RK 40  /* rolls tracked */
#define RP 376 /* pips 0 .. 375 (15 checkers on the bar) */
#define RD 31  /* dice 0 .. 30 */
static double *rolls_reach;                 /* rolls_reach[(p * RD + d) * RK + k], k < RK: one (p, d)'s
                                              * k in a row */
static double *bo_off, *bo_first;     /* cumulative: P(done within k rolls), positions x bo_slots */
static int bo_positions, bo_slots;    /* beyond bo_slots rolls a distribution is complete */
static long bo_comb[16][7];           /* C(s + j - 1, j), the database index's terms */

static int build_reach(void) {
    double *cur = calloc((size_t)RP * RD, sizeof(double)), *nxt = calloc((size_t)RP * RD, sizeof(double));
    double *r = malloc((size_t)RK * RP * RD * sizeof(double));
    if (!cur || !nxt || !r) {
        free(cur), free(nxt), free(r);
        return -1;
    }
    cur[0] = 1.0;
    for (int k = 0; k < RK; k++) {
        double *rk = r + (size_t)k * RP * RD;
        for (int p = RP - 1; p >= 0; p--)
            for (int d = RD - 1; d >= 0; d--) {
                double v = cur[p * RD + d];
                if (p + 1 < RP) v += rk[(p + 1) * RD + d];
                if (d + 1 < RD) v += rk[p * RD + d + 1];
                if (p + 1 < RP && d + 1 < RD) v -= rk[(p + 1) * RD + d + 1];
                rk[p * RD + d] = v;
            }
        memset(nxt, 0, (size_t)RP * RD * sizeof(double));
        for (int p = 0; p < RP; p++)
            for (int d = 0; d < RD; d++) {
                double v = cur[p * RD + d];
                if (v == 0.0) continue;
                for (int a = 1; a <= 6; a++)
                    for (int b = a; b <= 6; b++) {
                        int pips = a == b ? 4 * a : a + b, dice = a == b ? 4 : 2;
                        int np = p + pips < RP ? p + pips : RP - 1, nd = d + dice < RD ? d + dice : RD - 1;
                        nxt[np * RD + nd] += v * (a == b ? 1.0 : 2.0) / 36.0;
                    }
            }
        double *t = cur;
        cur = nxt;
        nxt = t;
    }
    free(cur), free(nxt);
    double *by_pd = malloc((size_t)RK * RP * RD * sizeof(double)); /* the side_cdfs order: k last */
    if (!by_pd) {
        free(r);
        return -1;
    }
    for (int k = 0; k < RK; k++)
        for (size_t pd = 0; pd < (size_t)RP * RD; pd++) by_pd[pd * RK + k] = r[(size_t)k * RP * RD + pd];
    free(r);
    rolls_reach = by_pd;
    return 0;
}

static long bo_index(const uint8_t *home) {
    long index = 0;
    int s = 0;
    for (int j = 1; j <= 6; j++) {
        s += home[6 - j];
        index += bo_comb[s][j];
    }
    return index;
}

/* P(done within k rolls), k < RK, of side s: to bear off every checker (off) and its first (first). */
static void side_cdfs(const uint8_t *s, double *off, double *first) {
    int total = 0, outside = 0, to_home = 0, pips = 0, lowest = 6, dice_off = 0, dice_home = 0;
    for (int i = 24; i >= 0; i--) {
        int n = s[i];
        if (!n) continue;
        total += n;
        pips += n * (i + 1);
        dice_off += n * ((i + 6) / 6); /* a checker on point q needs ceil(q / 6) dice to bear off */
        if (i >= 6) {
            outside += n;
            to_home += n * (i + 1 - 6);
            dice_home += n * ((i - 6 + 6) / 6); /* and ceil((q - 6) / 6) to come home */
        } else
            lowest = i + 1;
    }
    if (total == 0) {
        for (int k = 0; k < RK; k++) off[k] = first[k] = 1.0;
        return;
    }
    if (outside == 0 && bo_index(s) < bo_positions) {
        const double *o = bo_off + (size_t)bo_index(s) * bo_slots, *f = bo_first + (size_t)bo_index(s) * bo_slots;
        for (int k = 0; k < RK; k++) {
            int j = k < bo_slots ? k : bo_slots - 1;
            off[k] = o[j];
            first[k] = total < 15 ? 1.0 : f[j];
        }
        return;
    }
    int p = pips < RP ? pips : RP - 1, d = dice_off < RD ? dice_off : RD - 1;
    int p1 = to_home + lowest < RP ? to_home + lowest : RP - 1, d1 = dice_home + 1 < RD ? dice_home + 1 : RD - 1;
    const double *ro = rolls_reach + ((size_t)p * RD + d) * RK, *rf = rolls_reach + ((size_t)p1 * RD + d1) * RK;
    for (int k = 0; k < RK; k++) {
        off[k] = ro[k];
        first[k] = total < 15 ? 1.0 : rf[k];
    }
}

/* The eight v4 terms of a board, the player on roll's four then the opponent's: the chance to
 * finish first, to finish before the other has a checker off, and the mean rolls to finish / 20
 * and to bear off a first checker / 10 (0 once one is off). */
static void race_terms(const uint8_t *mine, const uint8_t *theirs, float *out) {
    double off[2][RK], first[2][RK];
    side_cdfs(mine, off[0], first[0]);
    side_cdfs(theirs, off[1], first[1]);
    for (int s = 0; s < 2; s++) {
        int o = 1 - s, lag = s == 0; /* the other side's rolls before this side's n-th: n - lag */
        double win = 0.0, gammon = 0.0, mean_off = 0.0, mean_first = 0.0;
        for (int n = 0; n < RK; n++) {
            double pmf = off[s][n] - (n ? off[s][n - 1] : 0.0);
            int m = n - lag;
            win += pmf * (1.0 - (m >= 0 ? off[o][m] : 0.0));
            gammon += pmf * (1.0 - (m >= 0 ? first[o][m] : 0.0));
            mean_off += 1.0 - off[s][n];
            mean_first += 1.0 - first[s][n];
        }
        out[RTERMS * s + 0] = (float)win;
        out[RTERMS * s + 1] = (float)gammon;
        out[RTERMS * s + 2] = (float)(mean_off / 20.0);
        out[RTERMS * s + 3] = (float)(mean_first / 10.0);
    }
}

static int features_of(int version) {
    return version == 1 ? BASE : version == 2 ? BASE + 2 * NF : version == 3 ? F3 : version == 4 ? MAXF : 0;
}

static void add_nonzero(const float *x, int n, int base, int *idx, float *val, int *k) {
    for (int e = 0; e < n; e++)
        if (x[e] != 0.0f) {
            idx[*k] = base + e;
            val[(*k)++] = x[e];
        }
}

/* The non-zero inputs of one board in encoding `version` (1, 2 or 3), in input order: their
 * indices and values; returns their count (at most MAXF). */
static int encode_board_opt(const uint8_t *mine, int version, int race, int *idx, float *val);

static int encode_board(const uint8_t *mine, int version, int *idx, float *val) {
    return encode_board_opt(mine, version, 1, idx, val);
}

/* encode_board, with v4's race terms left out when `race` is 0 (a net whose first layer has zero
 * weights on them: they would add nothing, so leaving them out changes no bit of its output). */
static int encode_board_opt(const uint8_t *mine, int version, int race, int *idx, float *val) {
    const uint8_t *theirs = mine + 25;
    float pm, pt;
    int k = encode_side(mine, 0, idx, val, &pm);
    k += encode_side(theirs, PER_SIDE, idx + k, val + k, &pt);
    float diff = (pm - pt) * 2.0f;
    if (diff != 0.0f) {
        idx[k] = 2 * PER_SIDE;
        val[k++] = diff;
    }
    int mb = back_of(mine), tb = back_of(theirs);
    if (mb >= 0 && tb >= 0 && mb + tb >= 23) {
        idx[k] = 2 * PER_SIDE + 1;
        val[k++] = 1.0f;
    }
    if (version >= 2) {
        float extra[2 * NF];
        side_features_fast(mine, theirs, extra);
        side_features_fast(theirs, mine, extra + NF);
        add_nonzero(extra, 2 * NF, BASE, idx, val, &k);
    }
    if (version >= 3) {
        float t[2 * TERMS];
        side_terms(mine, theirs, t);
        side_terms(theirs, mine, t + TERMS);
        add_nonzero(t, 2 * TERMS, BASE + 2 * NF, idx, val, &k);
    }
    if (version >= 4 && race) {
        float t[2 * RTERMS];
        race_terms(mine, theirs, t);
        add_nonzero(t, 2 * RTERMS, F3, idx, val, &k);
    }
    return k;
}

#pragma GCC diagnostic ignored "-Wpsabi" /* v8 values stay inside this file */
typedef float v8 __attribute__((vector_size(32)));

static inline v8 load8(const float *p) {
    v8 x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline void store8(float *p, v8 x) { memcpy(p, &x, sizeof x); }

/* A net as the forward pass walks it: per hidden layer its transposed weight (in, width) and
 * bias, then the head. */
typedef struct {
    int layers;
    int width[MAX_LAYERS];
    const float *wt[MAX_LAYERS], *b[MAX_LAYERS];
    const float *head_w, *head_b;
} Net;

#define INLINE static inline __attribute__((always_inline))

/* acc = b + sum_i val[i] * wt[idx[i]] (rows of h), in the order of i: 64 units at a time
 * kept in registers, then 32, 8 and one.  Each unit's sum runs in the same order whatever the
 * blocks; values of 1 (most of the first layer's) are multiplied too: 1 * w is w, and a branch
 * on them costs more than the multiplication. */
INLINE void sparse_layer(const int *idx, const float *val, int k, const float *wt, const float *b, int h,
                         float *acc) {
    int j = 0;
    for (; j + 64 <= h; j += 64) {
        v8 a0 = load8(b + j), a1 = load8(b + j + 8), a2 = load8(b + j + 16), a3 = load8(b + j + 24);
        v8 a4 = load8(b + j + 32), a5 = load8(b + j + 40), a6 = load8(b + j + 48), a7 = load8(b + j + 56);
        for (int i = 0; i < k; i++) {
            const float *row = wt + (size_t)idx[i] * h + j;
            const float v = val[i];
            v8 vv = {v, v, v, v, v, v, v, v};
            a0 += vv * load8(row);
            a1 += vv * load8(row + 8);
            a2 += vv * load8(row + 16);
            a3 += vv * load8(row + 24);
            a4 += vv * load8(row + 32);
            a5 += vv * load8(row + 40);
            a6 += vv * load8(row + 48);
            a7 += vv * load8(row + 56);
        }
        store8(acc + j, a0);
        store8(acc + j + 8, a1);
        store8(acc + j + 16, a2);
        store8(acc + j + 24, a3);
        store8(acc + j + 32, a4);
        store8(acc + j + 40, a5);
        store8(acc + j + 48, a6);
        store8(acc + j + 56, a7);
    }
    for (; j + 32 <= h; j += 32) {
        v8 a0 = load8(b + j), a1 = load8(b + j + 8), a2 = load8(b + j + 16), a3 = load8(b + j + 24);
        for (int i = 0; i < k; i++) {
            const float *row = wt + (size_t)idx[i] * h + j;
            const float v = val[i];
            v8 vv = {v, v, v, v, v, v, v, v};
            a0 += vv * load8(row);
            a1 += vv * load8(row + 8);
            a2 += vv * load8(row + 16);
            a3 += vv * load8(row + 24);
        }
        store8(acc + j, a0);
        store8(acc + j + 8, a1);
        store8(acc + j + 16, a2);
        store8(acc + j + 24, a3);
    }
    for (; j + 8 <= h; j += 8) {
        v8 a = load8(b + j);
        for (int i = 0; i < k; i++) {
            const float *row = wt + (size_t)idx[i] * h + j;
            const float v = val[i];
            v8 vv = {v, v, v, v, v, v, v, v};
            a += vv * load8(row);
        }
        store8(acc + j, a);
    }
    for (; j < h; j++) {
        float a = b[j];
        for (int i = 0; i < k; i++) a += val[i] * wt[(size_t)idx[i] * h + j];
        acc[j] = a;
    }
}

/* The hidden layers of one board's non-zero inputs (idx, val: k of them, overwritten by each
 * layer's non-zero activations), then the five output logits into `logits`, each summed in
 * 8 lanes and the lanes added in a fixed order.  acc: room for the widest layer. */
CLONES
static void net_logits(int *idx, float *val, int k, const Net *net, float *acc, float *logits) {
    int h = 0;
    for (int l = 0; l < net->layers; l++) {
        h = net->width[l];
        sparse_layer(idx, val, k, net->wt[l], net->b[l], h, acc);
        if (l + 1 < net->layers) {
            k = 0;
            for (int j = 0; j < h; j++) { /* the next layer's inputs: the positive units */
                idx[k] = j;
                val[k] = acc[j];
                k += acc[j] > 0.0f;
            }
        }
    }
    for (int j = 0; j < h; j++) acc[j] = acc[j] > 0.0f ? acc[j] : 0.0f;
    for (int o = 0; o < 5; o++) {
        const float *w = net->head_w + (size_t)o * h;
        v8 z = {0, 0, 0, 0, 0, 0, 0, 0};
        int j = 0;
        for (; j + 8 <= h; j += 8) z += load8(acc + j) * load8(w + j);
        float lanes[8], t = 0.0f;
        store8(lanes, z);
        for (int l = 0; l < 8; l++) t += lanes[l];
        for (; j < h; j++) t += acc[j] * w[j];
        logits[o] = t;
    }
}

static float sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

static const char *check_boards(const Py_buffer *boards, int version) {
    if (version >= 4 && !rolls_reach && build_reach() < 0) return "out of memory for the v4 tables";
    if (boards->len % 50) return "boards must be a multiple of 50 bytes";
    if (!features_of(version)) return "the C encoding knows versions 1 to 4";
    if (version >= 4 && !bo_off) return "encoding v4 needs the bear-off tables: call set_bearoff first";
    return NULL;
}

static PyObject *f_forward(PyObject *self, PyObject *args) {
    Py_buffer boards, head_w, head_b, out;
    Py_buffer bufs[2 * MAX_LAYERS];
    int version, nbufs = 0;
    PyObject *layers, *seq = NULL, *result = NULL;
    float *acc = NULL, *val = NULL;
    int *idx = NULL;
    if (!PyArg_ParseTuple(args, "y*iOy*y*w*", &boards, &version, &layers, &head_w, &head_b, &out)) return NULL;
    Py_ssize_t n = boards.len / 50;
    Net net;
    const char *err = check_boards(&boards, version);
    if (err) goto fail;
    seq = PySequence_Fast(layers, "layers must be a sequence of (wt, b) pairs");
    if (!seq) goto done;
    Py_ssize_t nl = PySequence_Fast_GET_SIZE(seq);
    if (nl < 1 || nl > MAX_LAYERS) {
        err = "a net has 1 to 8 (MAX_LAYERS) hidden layers";
        goto fail;
    }
    net.layers = (int)nl;
    int inputs = features_of(version), widest = MAXF;
    for (int l = 0; l < net.layers; l++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(seq, l);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            err = "each layer is a (wt, b) tuple";
            goto fail;
        }
        for (int e = 0; e < 2; e++) {
            if (PyObject_GetBuffer(PyTuple_GET_ITEM(pair, e), &bufs[nbufs], PyBUF_SIMPLE) < 0) goto done;
            nbufs++;
        }
        const Py_buffer *wt = &bufs[nbufs - 2], *b = &bufs[nbufs - 1];
        Py_ssize_t h = b->len / (Py_ssize_t)sizeof(float);
        if (b->len % (Py_ssize_t)sizeof(float) || h < 1 || h > MAX_WIDTH) {
            err = "bad layer width";
            goto fail;
        }
        if (wt->len != (Py_ssize_t)inputs * h * (Py_ssize_t)sizeof(float)) {
            err = "a layer's weight has the wrong size";
            goto fail;
        }
        net.width[l] = (int)h;
        net.wt[l] = wt->buf;
        net.b[l] = b->buf;
        inputs = (int)h;
        if (h > widest) widest = (int)h;
    }
    if (head_w.len != 5 * (Py_ssize_t)inputs * (Py_ssize_t)sizeof(float)) err = "head_w has the wrong size";
    else if (head_b.len != 5 * (Py_ssize_t)sizeof(float)) err = "head_b has the wrong size";
    else if (out.len != n * 5 * (Py_ssize_t)sizeof(double)) err = "out has the wrong size";
    if (err) goto fail;
    net.head_w = head_w.buf;
    net.head_b = head_b.buf;
    int race = 1; /* v4: are the race terms' first-layer weights all zero (a widened v3 net)? */
    if (version >= 4) {
        race = 0;
        for (int e = F3; e < MAXF && !race; e++)
            for (int u = 0; u < net.width[0]; u++)
                if (net.wt[0][(size_t)e * net.width[0] + u] != 0.0f) {
                    race = 1;
                    break;
                }
    }
    acc = malloc((size_t)widest * sizeof(float));
    val = malloc((size_t)widest * sizeof(float));
    idx = malloc((size_t)widest * sizeof(int));
    if (!acc || !val || !idx) {
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *bp = boards.buf;
    const float *B2 = net.head_b;
    double *op = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int k = encode_board_opt(bp + 50 * i, version, race, idx, val);
        float c[5];
        net_logits(idx, val, k, &net, acc, c);
        for (int o = 0; o < 5; o++) c[o] = sigmoid(c[o] + B2[o]);
        float win = c[0], wg = win * c[1], wbg = wg * c[2], lg = (1.0f - win) * c[3], lbg = lg * c[4];
        double *r = op + 5 * i;
        r[0] = win;
        r[1] = wg;
        r[2] = wbg;
        r[3] = lg;
        r[4] = lbg;
    }
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    result = Py_None;
    goto done;
fail:
    PyErr_SetString(PyExc_ValueError, err);
done:
    free(acc);
    free(val);
    free(idx);
    Py_XDECREF(seq);
    for (int e = 0; e < nbufs; e++) PyBuffer_Release(&bufs[e]);
    PyBuffer_Release(&boards);
    PyBuffer_Release(&head_w);
    PyBuffer_Release(&head_b);
    PyBuffer_Release(&out);
    return result;
}

/* encode(boards, version) -> bytes of N*F float32: the encoding the forward pass computes. */
static PyObject *f_encode(PyObject *self, PyObject *args) {
    Py_buffer boards;
    int version;
    if (!PyArg_ParseTuple(args, "y*i", &boards, &version)) return NULL;
    const char *err = check_boards(&boards, version);
    if (err) {
        PyBuffer_Release(&boards);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_ssize_t n = boards.len / 50, f = features_of(version);
    PyObject *res = PyBytes_FromStringAndSize(NULL, n * f * (Py_ssize_t)sizeof(float));
    if (!res) {
        PyBuffer_Release(&boards);
        return NULL;
    }
    float *x = (float *)PyBytes_AS_STRING(res);
    const uint8_t *bp = boards.buf;
    Py_BEGIN_ALLOW_THREADS
    memset(x, 0, (size_t)(n * f) * sizeof(float));
    int idx[MAXF];
    float val[MAXF];
    for (Py_ssize_t i = 0; i < n; i++) {
        int k = encode_board(bp + 50 * i, version, idx, val);
        for (int e = 0; e < k; e++) x[i * f + idx[e]] = val[e];
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&boards);
    return res;
}

/* Bytes of N*width float32: fill(mine, theirs, row) for every board (version: what check_boards asks). */
static PyObject *board_rows(PyObject *args, int version, int width,
                            void (*fill)(const uint8_t *, const uint8_t *, float *)) {
    Py_buffer boards;
    if (!PyArg_ParseTuple(args, "y*", &boards)) return NULL;
    const char *err = check_boards(&boards, version);
    if (err) {
        PyBuffer_Release(&boards);
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_ssize_t n = boards.len / 50;
    PyObject *res = PyBytes_FromStringAndSize(NULL, n * width * (Py_ssize_t)sizeof(float));
    if (!res) {
        PyBuffer_Release(&boards);
        return NULL;
    }
    float *t = (float *)PyBytes_AS_STRING(res);
    const uint8_t *bp = boards.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) fill(bp + 50 * i, bp + 50 * i + 25, t + width * i);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&boards);
    return res;
}

static void both_side_terms(const uint8_t *mine, const uint8_t *theirs, float *out) {
    side_terms(mine, theirs, out);
    side_terms(theirs, mine, out + TERMS);
}

/* terms(boards) -> bytes of N*2*TERMS float32: encoding.race_contact_terms. */
static PyObject *f_terms(PyObject *self, PyObject *args) { return board_rows(args, 3, 2 * TERMS, both_side_terms); }

/* set_bearoff(off, first, positions, slots): the one-sided database's distributions (float64
 * positions x slots, P(n rolls) to bear off every checker and the first one) for encoding v4. */
static PyObject *f_set_bearoff(PyObject *self, PyObject *args) {
    Py_buffer off, first;
    int positions, slots;
    if (!PyArg_ParseTuple(args, "y*y*ii", &off, &first, &positions, &slots)) return NULL;
    const char *err = NULL;
    if (positions < 1 || slots < 1 || slots > RK) err = "positions >= 1 and 1 <= slots <= 40";
    else if (off.len != (Py_ssize_t)positions * slots * (Py_ssize_t)sizeof(double) || first.len != off.len)
        err = "off and first must be positions x slots float64";
    double *o = NULL, *f = NULL;
    if (!err) {
        o = malloc((size_t)positions * slots * sizeof(double));
        f = malloc((size_t)positions * slots * sizeof(double));
        if (!o || !f) {
            free(o), free(f);
            PyBuffer_Release(&off);
            PyBuffer_Release(&first);
            return PyErr_NoMemory();
        }
        const double *so = off.buf, *sf = first.buf;
        for (int i = 0; i < positions; i++) {
            double co = 0.0, cf = 0.0;
            for (int k = 0; k < slots; k++) {
                co += so[(size_t)i * slots + k], cf += sf[(size_t)i * slots + k];
                o[(size_t)i * slots + k] = co;
                f[(size_t)i * slots + k] = cf;
            }
        }
        for (int c = 0; c < 16; c++)
            for (int j = 0; j < 7; j++) {
                long v = 1; /* C(c + j - 1, j) */
                for (int t = 1; t <= j; t++) v = v * (c + j - t) / t;
                bo_comb[c][j] = j ? v : 0;
            }
        free(bo_off), free(bo_first);
        bo_off = o, bo_first = f, bo_positions = positions, bo_slots = slots;
    }
    PyBuffer_Release(&off);
    PyBuffer_Release(&first);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* race_terms(boards) -> bytes of N*2*RTERMS float32: encoding v4's race-outcome terms. */
static PyObject *f_race_terms(PyObject *self, PyObject *args) { return board_rows(args, 4, 2 * RTERMS, race_terms); }

/* flags(boards, two_points, two_max) -> bytes, one byte of FLAG_* bits per board. */
enum {
    FLAG_WON = 1,       /* the player on roll has borne off every checker */
    FLAG_LOST = 2,      /* the opponent has */
    FLAG_HOME = 4,      /* both sides have every checker on points 1..6 (or off) */
    FLAG_TWO = 8,       /* both sides: at most two_max checkers, all on points 1..two_points */
    FLAG_CONTACT = 16,  /* some checker must still pass an opposing one (encoding.contact) */
    FLAG_MINE_OFF = 32, /* the player on roll has borne off a checker */
    FLAG_THEIRS_OFF = 64,
    FLAG_CRASHED = 128 /* contact, and a side is crashed (classes.crashed, gnubg's test) */
};

/* gnubg's crashed test of one side (ClassifyPosition, N = 6), as classes.crashed computes it:
 * `total` checkers in play, c[0] and c[1] on the ace and deuce points. */
static int side_crashed(const uint8_t *c, int total) {
    const int n = 6, p1 = c[0], p2 = c[1];
    if (total <= n) return 1;
    if (p1 > 1) return total <= n + p1 || (p2 > 1 && 1 + total - (p1 + p2) <= n);
    return total <= n + (p2 - 1);
}

static unsigned side_flags(const uint8_t *c, int two_points, int two_max, int *on, int *back) {
    int total = 0, beyond6 = 0, beyond_two = 0, b = -1;
    for (int i = 0; i < 25; i++) {
        int n = c[i];
        if (!n) continue;
        total += n;
        b = i;
        if (i >= 6) beyond6 += n;
        if (i >= two_points) beyond_two += n;
    }
    *on = total;
    *back = b;
    return (beyond6 == 0 ? 1u : 0u) | (beyond_two == 0 && total <= two_max ? 2u : 0u);
}

static PyObject *f_flags(PyObject *self, PyObject *args) {
    Py_buffer boards;
    int two_points, two_max;
    if (!PyArg_ParseTuple(args, "y*ii", &boards, &two_points, &two_max)) return NULL;
    if (boards.len % 50) {
        PyBuffer_Release(&boards);
        PyErr_SetString(PyExc_ValueError, "boards must be a multiple of 50 bytes");
        return NULL;
    }
    Py_ssize_t n = boards.len / 50;
    PyObject *res = PyBytes_FromStringAndSize(NULL, n);
    if (!res) {
        PyBuffer_Release(&boards);
        return NULL;
    }
    uint8_t *f = (uint8_t *)PyBytes_AS_STRING(res);
    const uint8_t *bp = boards.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int mon, ton, mb, tb;
        unsigned m = side_flags(bp + 50 * i, two_points, two_max, &mon, &mb);
        unsigned t = side_flags(bp + 50 * i + 25, two_points, two_max, &ton, &tb);
        unsigned x = 0;
        if (mon == 0) x |= FLAG_WON;
        if (ton == 0) x |= FLAG_LOST;
        if (m & t & 1u) x |= FLAG_HOME;
        if (m & t & 2u) x |= FLAG_TWO;
        if (mb >= 0 && tb >= 0 && mb + tb >= 23) {
            x |= FLAG_CONTACT;
            if (side_crashed(bp + 50 * i, mon) || side_crashed(bp + 50 * i + 25, ton)) x |= FLAG_CRASHED;
        }
        if (mon < 15) x |= FLAG_MINE_OFF;
        if (ton < 15) x |= FLAG_THEIRS_OFF;
        f[i] = (uint8_t)x;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&boards);
    return res;
}

static PyObject *f_features_fast(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    if (view.len % 50) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "boards must be a multiple of 50 bytes");
        return NULL;
    }
    Py_ssize_t n = view.len / 50;
    PyObject *res = PyBytes_FromStringAndSize(NULL, n * 2 * NF * (Py_ssize_t)sizeof(float));
    if (!res) {
        PyBuffer_Release(&view);
        return NULL;
    }
    float *f = (float *)PyBytes_AS_STRING(res);
    const uint8_t *b = view.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        side_features_fast(b + 50 * i, b + 50 * i + 25, f + 2 * NF * i);
        side_features_fast(b + 50 * i + 25, b + 50 * i, f + 2 * NF * i + NF);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return res;
}

static PyMethodDef forward_methods[] = {
    {"features", f_features_fast, METH_VARARGS, "features(boards) -> float32 bytes, as _features.features"},
    {"flags", f_flags, METH_VARARGS, "flags(boards, two_points, two_max) -> bytes of FLAG_* bits per board"},
    {"forward", f_forward, METH_VARARGS,
     "forward(boards, version, layers, head_w, head_b, out): the net's probabilities into out"},
    {"encode", f_encode, METH_VARARGS, "encode(boards, version) -> float32 bytes, as encoding.encode"},
    {"terms", f_terms, METH_VARARGS, "terms(boards) -> float32 bytes, as encoding.race_contact_terms"},
    {"race_terms", f_race_terms, METH_VARARGS, "race_terms(boards) -> float32 bytes: encoding v4's terms"},
    {"set_bearoff", f_set_bearoff, METH_VARARGS,
     "set_bearoff(off, first, positions, slots): the one-sided database for encoding v4"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef forward_module = {PyModuleDef_HEAD_INIT, "_forward",
                                            "Encoding and forward pass of pulvezar's nets in C.", -1,
                                            forward_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__forward(void) {
    PyObject *m = PyModule_Create(&forward_module);
    if (m) {
        PyModule_AddIntConstant(m, "BASE", BASE);
        PyModule_AddIntConstant(m, "TERMS", TERMS);
        PyModule_AddIntConstant(m, "RTERMS", RTERMS);
        PyModule_AddIntConstant(m, "MAX_LAYERS", MAX_LAYERS);
        PyModule_AddIntConstant(m, "MAX_WIDTH", MAX_WIDTH);
        PyModule_AddIntConstant(m, "FLAG_WON", FLAG_WON);
        PyModule_AddIntConstant(m, "FLAG_LOST", FLAG_LOST);
        PyModule_AddIntConstant(m, "FLAG_HOME", FLAG_HOME);
        PyModule_AddIntConstant(m, "FLAG_TWO", FLAG_TWO);
        PyModule_AddIntConstant(m, "FLAG_CONTACT", FLAG_CONTACT);
        PyModule_AddIntConstant(m, "FLAG_MINE_OFF", FLAG_MINE_OFF);
        PyModule_AddIntConstant(m, "FLAG_THEIRS_OFF", FLAG_THEIRS_OFF);
        PyModule_AddIntConstant(m, "FLAG_CRASHED", FLAG_CRASHED);
    }
    return m;
}
