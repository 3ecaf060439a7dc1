/*
 * _bearoff.c: builds pulvezar's exact one-sided bear-off database (and the
 * two-sided one for small positions, build_two_sided below).
 *
 * A one-sided position is c[0..P-1], the mover's checkers on points 1..P
 * (P <= 6, the home board), at most K checkers in all.  Its index is the
 * combinatorial number system over (P, K), taken from the highest point down:
 *
 *     s_j = c[P-1] + ... + c[P-j]          (checkers on the j highest points)
 *     a_j = s_j + j - 1                    (strictly increasing in j)
 *     index = sum_{j=1..P} C(a_j, j)
 *
 * a bijection onto [0, C(P+K, P)); the empty position is 0 and positions with
 * fewer checkers form a prefix.  Moving a checker down or bearing it off
 * lowers some s_j and raises none, so every successor of a position has a
 * smaller index: the programme runs in index order.
 *
 * Per position two distributions of the number of rolls are computed with the
 * legal-play generator of rules/movegen.h:
 *   off   -- rolls to bear off every checker, each roll played to minimise the
 *            expected number of rolls;
 *   first -- rolls until at least one checker is off, each roll played to
 *            minimise the expected number of rolls until then.
 * Ties between plays go to the successor with the smallest index.  The empty
 * position takes 0 rolls in both.
 *
 * build_one_sided() returns the table encoded as (little-endian):
 *   uint8  lo[N][2], len[N][2]   first stored slot (rolls) and slot count of
 *                                the off (0) and first-off (1) distribution
 *   uint32 q[...]                fixed-point probabilities, round(p * 2^31),
 *                                position by position, off before first-off;
 *                                slots that round to 0 at either end are
 *                                dropped (so each lost tail is < 2^-32).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>

#include "../rules/movegen.h"

#define MAXP 10 /* the largest table: 15 checkers on 10 points, 3,268,760 positions */
#define HOME 6  /* the default: the home board */
#define MAXK 15
#define SLOTS 64 /* dense working slots (rolls 0..63); overflow is an error */
#define SCALE 2147483648.0 /* 2^31 */

static uint32_t binom[MAXP + MAXK + 1][MAXP + 1];

static void init_binom(void) {
    for (int n = 0; n <= MAXP + MAXK; n++)
        for (int k = 0; k <= MAXP; k++) {
            if (k == 0) binom[n][k] = 1;
            else if (n == 0) binom[n][k] = 0;
            else binom[n][k] = binom[n - 1][k - 1] + binom[n - 1][k];
        }
}

static uint32_t pos_index(const uint8_t *c, int p) {
    uint32_t idx = 0;
    int s = 0;
    for (int j = 1; j <= p; j++) {
        s += c[p - j];
        idx += binom[s + j - 1][j];
    }
    return idx;
}

/* Every position with at most k checkers on p points, by index. */
static void enumerate(uint8_t *pos, int p, int k, uint8_t *c, int pt, int left) {
    if (pt == p) {
        memcpy(pos + (size_t)pos_index(c, p) * MAXP, c, MAXP);
        return;
    }
    for (int n = 0; n <= left; n++) {
        c[pt] = (uint8_t)n;
        enumerate(pos, p, k, c, pt + 1, left - n);
    }
    c[pt] = 0;
}

static PyObject *build_one_sided(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"max_checkers", "points", NULL};
    int k = MAXK, p = HOME;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ii", kwlist, &k, &p)) return NULL;
    if (k < 0 || k > MAXK || p < 1 || p > MAXP) {
        PyErr_Format(PyExc_ValueError, "need 0 <= max_checkers <= %d and 1 <= points <= %d", MAXK, MAXP);
        return NULL;
    }
    init_binom();
    size_t n = binom[p + k][p];
    uint8_t *pos = PyMem_Calloc(n, MAXP);
    uint8_t *count = PyMem_Calloc(n, 1);
    double *dist = PyMem_Calloc(n * 2 * SLOTS, sizeof(double)); /* [n][2][SLOTS] */
    double *mean = PyMem_Calloc(n * 2, sizeof(double));
    uint8_t *lo = PyMem_Calloc(n * 2, 1), *len = PyMem_Calloc(n * 2, 1);
    PyObject *out = NULL;
    uint8_t c[MAXP] = {0};
    if (!pos || !count || !dist || !mean || !lo || !len) {
        PyErr_NoMemory();
        goto done;
    }
    enumerate(pos, p, k, c, 0, k);
    for (size_t i = 0; i < n; i++)
        for (int q = 0; q < p; q++) count[i] += pos[i * MAXP + q];

    dist[0] = dist[SLOTS] = 1.0; /* the empty position: 0 rolls */
    Gen g;
    for (size_t i = 1; i < n; i++) {
        Board b;
        memset(&b, 0, sizeof b);
        memcpy(b.me, pos + i * MAXP, (size_t)p);
        double *off = dist + i * 2 * SLOTS, *first = off + SLOTS;
        for (int d1 = 1; d1 <= 6; d1++)
            for (int d2 = 1; d2 <= d1; d2++) {
                double w = (d1 == d2 ? 1.0 : 2.0) / 36.0;
                if (gen_init(&g, 0) < 0) goto done;
                if (movegen_generate(&g, &b, d1, d2) < 0) {
                    gen_free(&g);
                    PyErr_NoMemory();
                    goto done;
                }
                size_t best_off = 0, best_first = 0;
                double e_off = INFINITY, e_first = INFINITY;
                int first_done = 0, bad = 0;
                for (Py_ssize_t r = 0; r < g.n; r++) {
                    const Board *nb = (const Board *)(g.data + r * REC);
                    for (int q = p; q < NPTS; q++) bad |= nb->me[q] != 0;
                    size_t j = pos_index(nb->me, p);
                    bad |= j >= i;
                    double eo = mean[2 * j];
                    if (eo < e_off || (eo == e_off && j < best_off)) e_off = eo, best_off = j;
                    int dn = count[j] < count[i];
                    double ef = dn ? 0.0 : mean[2 * j + 1];
                    if (ef < e_first || (ef == e_first && j < best_first))
                        e_first = ef, best_first = j, first_done = dn;
                }
                gen_free(&g);
                if (bad || g.n == 0) {
                    PyErr_SetString(PyExc_RuntimeError, "bear-off: unexpected successor position");
                    goto done;
                }
                const double *so = dist + best_off * 2 * SLOTS;
                const double *sf = dist + best_first * 2 * SLOTS + SLOTS;
                if (so[SLOTS - 1] != 0.0 || (!first_done && sf[SLOTS - 1] != 0.0)) {
                    PyErr_SetString(PyExc_OverflowError, "bear-off: too many rolls for the slot count");
                    goto done;
                }
                for (int s = 0; s + 1 < SLOTS; s++) off[s + 1] += w * so[s];
                mean[2 * i] += w * e_off;
                if (first_done) {
                    first[1] += w;
                } else {
                    for (int s = 0; s + 1 < SLOTS; s++) first[s + 1] += w * sf[s];
                    mean[2 * i + 1] += w * e_first;
                }
            }
        mean[2 * i] += 1.0;
        mean[2 * i + 1] += 1.0;
    }

    /* encode: trim slots that round to zero at both ends */
    size_t total = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        const double *d = dist + i * SLOTS;
        int a = 0, e = SLOTS;
        while (a < SLOTS && d[a] * SCALE < 0.5) a++;
        while (e > a && d[e - 1] * SCALE < 0.5) e--;
        lo[i] = (uint8_t)a;
        len[i] = (uint8_t)(e - a);
        total += (size_t)(e - a);
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 * n + 4 * total));
    if (!out) goto done;
    uint8_t *o = (uint8_t *)PyBytes_AS_STRING(out);
    for (size_t i = 0; i < n; i++) {
        o[4 * i] = lo[2 * i];
        o[4 * i + 1] = lo[2 * i + 1];
        o[4 * i + 2] = len[2 * i];
        o[4 * i + 3] = len[2 * i + 1];
    }
    o += 4 * n;
    for (size_t i = 0; i < 2 * n; i++) {
        const double *d = dist + i * SLOTS;
        for (int s = lo[i]; s < lo[i] + len[i]; s++) {
            uint32_t v = (uint32_t)llround(d[s] * SCALE);
            o[0] = (uint8_t)v, o[1] = (uint8_t)(v >> 8), o[2] = (uint8_t)(v >> 16), o[3] = (uint8_t)(v >> 24);
            o += 4;
        }
    }
done:
    PyMem_Free(pos);
    PyMem_Free(count);
    PyMem_Free(dist);
    PyMem_Free(mean);
    PyMem_Free(lo);
    PyMem_Free(len);
    return out;
}

/*
 * build_two_sided(max_checkers=6, points=6) -> bytes: the exact two-sided
 * bear-off table.  For every pair (m, o) of one-sided positions (indices as
 * above, at most K checkers each) V(m, o) is the probability that the player
 * on roll with m wins against o, both sides playing every roll to maximise
 * their own winning chance:
 *
 *     V(m, o) = sum_rolls w * max_{m' legal after the roll} (m' empty ? 1 : 1 - V(o, m'))
 *
 * V(empty, o) = 1 (the mover has already won) and V(m, empty) = 0 for m not
 * empty (the opponent has).  Every successor m' has a smaller index than m,
 * so V(o, m') lies on a smaller index sum o + m' < m + o: the pairs are
 * computed anti-diagonal by anti-diagonal in doubles and only then rounded.
 *
 * The result is uint16 V[m][o] (row = mover), little-endian, round(V * 65535).
 */
#define MAXK2 8 /* C(14, 6) = 3003 positions, 9M pairs */
#define SCALE2 65535.0

static PyObject *build_two_sided(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"max_checkers", "points", NULL};
    int k = 6, p = HOME;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|ii", kwlist, &k, &p)) return NULL;
    if (k < 0 || k > MAXK2 || p < 1 || p > HOME) {
        PyErr_Format(PyExc_ValueError, "need 0 <= max_checkers <= %d and 1 <= points <= %d", MAXK2, HOME);
        return NULL;
    }
    init_binom();
    size_t n = binom[p + k][p];
    uint8_t *pos = PyMem_Calloc(n, MAXP);
    uint32_t *start = PyMem_Calloc(n * 21 + 1, sizeof(uint32_t)); /* successor lists */
    uint32_t *succ = NULL;
    size_t nsucc = 0, cap = 1024;
    double *v = PyMem_Calloc(n * n, sizeof(double)); /* [mover][opponent] */
    double w[21];
    PyObject *out = NULL;
    uint8_t c[MAXP] = {0};
    succ = PyMem_Malloc(cap * sizeof(uint32_t));
    if (!pos || !start || !v || !succ) {
        PyErr_NoMemory();
        goto done;
    }
    enumerate(pos, p, k, c, 0, k);

    /* the distinct successors of every position under each of the 21 rolls */
    Gen g;
    for (size_t i = 0; i < n; i++) {
        Board b;
        memset(&b, 0, sizeof b);
        memcpy(b.me, pos + i * MAXP, (size_t)p);
        int r = 0;
        for (int d1 = 1; d1 <= 6; d1++)
            for (int d2 = 1; d2 <= d1; d2++, r++) {
                w[r] = (d1 == d2 ? 1.0 : 2.0) / 36.0;
                start[i * 21 + (size_t)r] = (uint32_t)nsucc;
                if (i == 0) continue; /* the empty position does not move */
                if (gen_init(&g, 0) < 0) goto done;
                if (movegen_generate(&g, &b, d1, d2) < 0) {
                    gen_free(&g);
                    PyErr_NoMemory();
                    goto done;
                }
                int bad = g.n == 0;
                for (Py_ssize_t q = 0; q < g.n && !bad; q++) {
                    const Board *nb = (const Board *)(g.data + q * REC);
                    for (int t = p; t < NPTS; t++) bad |= nb->me[t] != 0;
                    size_t j = pos_index(nb->me, p);
                    bad |= j >= i;
                    if (nsucc == cap) {
                        uint32_t *ns = PyMem_Realloc(succ, 2 * cap * sizeof(uint32_t));
                        if (!ns) {
                            gen_free(&g);
                            PyErr_NoMemory();
                            goto done;
                        }
                        succ = ns, cap *= 2;
                    }
                    succ[nsucc++] = (uint32_t)j;
                }
                gen_free(&g);
                if (bad) {
                    PyErr_SetString(PyExc_RuntimeError, "bear-off: unexpected successor position");
                    goto done;
                }
            }
    }
    start[n * 21] = (uint32_t)nsucc;

    /* anti-diagonals s = m + o in increasing order */
    for (size_t s = 0; s + 1 < 2 * n; s++) {
        size_t m0 = s < n ? 0 : s - n + 1, m1 = s < n ? s : n - 1;
        for (size_t m = m0; m <= m1; m++) {
            size_t o = s - m;
            double val;
            if (m == 0) val = 1.0;
            else if (o == 0) val = 0.0;
            else {
                val = 0.0;
                const double *row = v + o * n; /* V(o, .) */
                for (int r = 0; r < 21; r++) {
                    double best = 0.0;
                    for (uint32_t q = start[m * 21 + (size_t)r]; q < start[m * 21 + (size_t)r + 1]; q++) {
                        uint32_t j = succ[q];
                        double x = j == 0 ? 1.0 : 1.0 - row[j];
                        if (x > best) best = x;
                    }
                    val += w[r] * best;
                }
            }
            v[m * n + o] = val;
        }
    }

    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(2 * n * n));
    if (!out) goto done;
    uint8_t *o8 = (uint8_t *)PyBytes_AS_STRING(out);
    for (size_t i = 0; i < n * n; i++) {
        double x = v[i] < 0.0 ? 0.0 : v[i] > 1.0 ? 1.0 : v[i];
        uint16_t q = (uint16_t)llround(x * SCALE2);
        o8[2 * i] = (uint8_t)q, o8[2 * i + 1] = (uint8_t)(q >> 8);
    }
done:
    PyMem_Free(pos);
    PyMem_Free(start);
    PyMem_Free(succ);
    PyMem_Free(v);
    return out;
}

/*
 * race_probabilities(payload, starts, points, boards) -> bytes: the race
 * values of boards whose both sides have every checker on points 1..points
 * (or off), from an encoded one-sided table of 15 checkers on `points` points
 * (build_one_sided's payload; `starts` is uint32[2 * positions], each
 * distribution's first slot in the q array).  Per board five float64, for the
 * player on roll (side 0 of the 50-byte board, the mover rolls first):
 *   win  = sum_n P(mover off in n) * P(opponent off in >= n)
 *   wg   = sum_n P(mover off in n) * P(opponent's first off in >= n), opponent 15 on the board
 *   lg   = sum_n P(opponent off in n) * P(mover's first off in > n), mover 15 on the board
 * and no backgammons (no checker can be in the other home board).  A board
 * outside the table is a ValueError.
 */
static int dense_of(const uint8_t *head, const uint32_t *q, size_t nq, const uint32_t *starts, size_t i,
                    int which, double *out) {
    for (int s = 0; s < SLOTS; s++) out[s] = 0.0;
    int lo = head[4 * i + which], len = head[4 * i + 2 + which];
    if (lo + len > SLOTS || (size_t)starts[2 * i + (size_t)which] + (size_t)len > nq) return -1;
    const uint32_t *src = q + starts[2 * i + (size_t)which];
    for (int s = 0; s < len; s++) out[lo + s] = (double)src[s] / SCALE;
    return 0;
}

static PyObject *race_probabilities(PyObject *self, PyObject *args) {
    Py_buffer pay, st, bd;
    int p;
    if (!PyArg_ParseTuple(args, "y*y*iy*", &pay, &st, &p, &bd)) return NULL;
    PyObject *out = NULL;
    init_binom();
    if (p < 1 || p > MAXP) {
        PyErr_Format(PyExc_ValueError, "need 1 to %d points", MAXP);
        goto done;
    }
    size_t n = binom[p + MAXK][p], nb = (size_t)bd.len / 50;
    if ((size_t)st.len != 8 * n || (size_t)pay.len < 4 * n || (size_t)bd.len % 50) {
        PyErr_SetString(PyExc_ValueError, "race table: payload, starts or boards of the wrong size");
        goto done;
    }
    const uint8_t *head = pay.buf, *b = bd.buf;
    const uint32_t *starts = st.buf;
    const uint32_t *q = (const uint32_t *)((const uint8_t *)pay.buf + 4 * n);
    size_t nq = ((size_t)pay.len - 4 * n) / 4;
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(nb * 5 * sizeof(double)));
    if (!out) goto done;
    double *o = (double *)PyBytes_AS_STRING(out);
    double mo[SLOTS], mf[SLOTS], oo[SLOTS], of[SLOTS];
    for (size_t k = 0; k < nb; k++, b += 50, o += 5) {
        int bad = 0, cm = 0, co = 0;
        for (int t = p; t < 25; t++) bad |= b[t] | b[25 + t];
        for (int t = 0; t < p; t++) cm += b[t], co += b[25 + t];
        if (bad || cm > MAXK || co > MAXK) {
            Py_CLEAR(out);
            PyErr_SetString(PyExc_ValueError, "race table: a board outside the table");
            goto done;
        }
        size_t im = pos_index(b, p), io = pos_index(b + 25, p);
        if (dense_of(head, q, nq, starts, im, 0, mo) || dense_of(head, q, nq, starts, im, 1, mf) ||
            dense_of(head, q, nq, starts, io, 0, oo) || dense_of(head, q, nq, starts, io, 1, of)) {
            Py_CLEAR(out);
            PyErr_SetString(PyExc_ValueError, "race table: inconsistent payload");
            goto done;
        }
        /* suffix sums: P(X >= n) */
        double o_ge[SLOTS + 1], of_ge[SLOTS + 1], mf_ge[SLOTS + 1];
        o_ge[SLOTS] = of_ge[SLOTS] = mf_ge[SLOTS] = 0.0;
        for (int s = SLOTS - 1; s >= 0; s--) {
            o_ge[s] = o_ge[s + 1] + oo[s];
            of_ge[s] = of_ge[s + 1] + of[s];
            mf_ge[s] = mf_ge[s + 1] + mf[s];
        }
        double win = 0.0, wg = 0.0, lg = 0.0;
        for (int s = 0; s < SLOTS; s++) {
            win += mo[s] * o_ge[s];
            if (co == MAXK) wg += mo[s] * of_ge[s];
            if (cm == MAXK) lg += oo[s] * mf_ge[s + 1];
        }
        o[0] = win, o[1] = wg, o[2] = 0.0, o[3] = lg, o[4] = 0.0;
    }
done:
    PyBuffer_Release(&pay);
    PyBuffer_Release(&st);
    PyBuffer_Release(&bd);
    return out;
}

static PyObject *position_index(PyObject *self, PyObject *arg) {
    PyObject *seq = PySequence_Fast(arg, "checkers must be a sequence of ints");
    if (!seq) return NULL;
    Py_ssize_t p = PySequence_Fast_GET_SIZE(seq);
    uint8_t c[MAXP] = {0};
    int total = 0;
    if (p < 1 || p > MAXP) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "need 1 to %d points", MAXP);
    }
    for (Py_ssize_t q = 0; q < p; q++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, q));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (v < 0 || v > MAXK || (total += (int)v) > MAXK) {
            Py_DECREF(seq);
            return PyErr_Format(PyExc_ValueError, "need 0 to %d checkers", MAXK);
        }
        c[q] = (uint8_t)v;
    }
    Py_DECREF(seq);
    init_binom();
    return PyLong_FromUnsignedLong(pos_index(c, (int)p));
}

static PyMethodDef methods[] = {
    {"build_one_sided", (PyCFunction)(void (*)(void))build_one_sided, METH_VARARGS | METH_KEYWORDS,
     "build_one_sided(max_checkers=15, points=6) -> bytes: the encoded one-sided bear-off table."},
    {"build_two_sided", (PyCFunction)(void (*)(void))build_two_sided, METH_VARARGS | METH_KEYWORDS,
     "build_two_sided(max_checkers=6, points=6) -> bytes: the exact two-sided table, uint16 V[mover][opponent]."},
    {"race_probabilities", race_probabilities, METH_VARARGS,
     "race_probabilities(payload, starts, points, boards) -> bytes: float64 (N, 5) race values from a one-sided table."},
    {"position_index", position_index, METH_O,
     "position_index(checkers) -> int: index of checkers on points 1..len(checkers)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_bearoff",
                                    "Exact one- and two-sided bear-off database builders.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__bearoff(void) { return PyModule_Create(&module); }
