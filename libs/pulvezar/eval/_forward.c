/*
 * pulvezar.eval._forward: the encoding and the forward pass of a one-hidden-layer
 * ValueNet in C, for CPU evaluation of large batches (rollouts, search).
 *
 * forward(boards, version, w1t, b1, w2, b2, hidden, out)
 *
 *   boards  bytes of N*50 uint8 (25 counts of the player on roll, then 25 of the
 *           opponent, each in its owner's numbering, index 24 = bar)
 *   version the encoding: 1, or 2 (v1 and the hand-made features of _features.c)
 *   w1t     float32 (F, hidden): the hidden layer's weight, transposed
 *           (F = 204 inputs for v1, 214 for v2)
 *   b1      float32 (hidden)
 *   w2      float32 (5, hidden), b2 float32 (5)
 *   out     a writable buffer of N*5 float64: win, win gammon, win backgammon,
 *           lose gammon, lose backgammon
 *
 * The encoding is encoding.py's, computed in the same float32 arithmetic;
 * features(boards) gives the hand-made features as _features.features does.
 * The inputs are sparse (about 44 of 214 are not zero), so the hidden layer
 * adds the weight rows of the non-zero inputs only,
 * in input order; a board's result therefore does not depend on the batch it
 * is in.  The sums run in another order than PyTorch's, so values agree with
 * the PyTorch net to float32 rounding (about 1e-7), not bit for bit.
 *
 * flags(boards, two_points, two_max) classifies boards in one pass (finished,
 * bear-off tables, contact) for the evaluator's routing and the rollouts' stops.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The hand-made features of encoding v2: _features.c's code, included so that the forward pass
 * computes them per board without a second pass (its own module init comes along, unused here),
 * with a faster equivalent of its shots() (shots_fast below, tested equal to it). */
#include "_features.c"

#define PER_SIDE 101
#define BASE (2 * PER_SIDE + 2)
#define MAXNZ (BASE + 64)

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

/* shots() of _features.c by blot-source pairs instead of rolls x sources: rolls (d1 <= d2,
 * index roll_index[d1][d2]) with which O hits at least one blot of S; the same count. */
static int roll_index[7][7];
static uint32_t contains_die[7]; /* rolls with a die d (the double d-d included) */
static int roll_weight[21];

static void init_rolls(void) {
    int r = 0;
    for (int d1 = 1; d1 <= 6; d1++)
        for (int d2 = d1; d2 <= 6; d2++) {
            roll_index[d1][d2] = roll_index[d2][d1] = r;
            roll_weight[r] = d1 == d2 ? 1 : 2;
            r++;
        }
    for (int d = 1; d <= 6; d++) {
        contains_die[d] = 0;
        for (int e = 1; e <= 6; e++) contains_die[d] |= 1u << roll_index[d][e];
    }
}

static int open_for_o(const View *v, int p) { return p <= 24 && v->s[p] < 2; }

static double shots_fast(const View *v) {
    int blots[24], nb = 0;
    for (int p = 1; p <= 24; p++)
        if (v->s[p] == 1) blots[nb++] = p;
    if (!nb) return 0.0;
    int sources[25], ns = 0;
    if (v->o[0] > 0) {
        sources[ns++] = 0;
    } else {
        for (int q = 1; q <= 23; q++)
            if (v->o[q]) sources[ns++] = q;
    }
    const uint32_t all = (1u << 21) - 1;
    uint32_t hit = 0;
    for (int k = 0; k < ns && hit != all; k++) {
        int q = sources[k];
        int several_on_bar = q == 0 && v->o[0] > 1;
        for (int i = 0; i < nb; i++) {
            int d = blots[i] - q;
            if (d <= 0) continue;
            if (d <= 6) hit |= contains_die[d];
            if (several_on_bar) continue; /* only the entering move itself */
            for (int d1 = 1; d1 <= 6; d1++) { /* two different dice, either order via an open point */
                int d2 = d - d1;
                if (d2 <= d1 || d2 > 6) continue;
                if (open_for_o(v, q + d1) || open_for_o(v, q + d2)) hit |= 1u << roll_index[d1][d2];
            }
            for (int x = 1; x <= 6; x++) { /* doubles: 2, 3 or 4 steps over open points */
                if (d % x || d / x < 2 || d / x > 4) continue;
                int ok = 1;
                for (int j = 1; j < d / x && ok; j++) ok = open_for_o(v, q + j * x);
                if (ok) hit |= 1u << roll_index[x][x];
            }
        }
    }
    int count = 0;
    for (int r = 0; r < 21; r++)
        if (hit & (1u << r)) count += roll_weight[r];
    return count / 36.0;
}

/* side_features() of _features.c with shots_fast(). */
static void side_features_fast(const uint8_t *self, const uint8_t *other, float *out) {
    side_features_with(self, other, out, shots_fast);
}

static int back_of(const uint8_t *c) {
    for (int i = 24; i >= 0; i--)
        if (c[i]) return i;
    return -1;
}

#pragma GCC diagnostic ignored "-Wpsabi" /* v8 values stay inside this file */
typedef float v8 __attribute__((vector_size(32)));

static inline v8 load8(const float *p) {
    v8 x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline void store8(float *p, v8 x) { memcpy(p, &x, sizeof x); }

/* The hidden layer (ReLU) of the non-zero inputs: acc = relu(b1 + sum_i val[i] * w1t[idx[i]]),
 * 32 units at a time kept in registers; then the five output logits, each summed in 8
 * lanes and the lanes added in a fixed order. */
CLONES
static void layers(const int *idx, const float *val, int k, const float *w1t, const float *b1, int h,
                   const float *w2, float *acc, float *logits) {
    int j = 0;
    for (; j + 32 <= h; j += 32) {
        v8 a0 = load8(b1 + j), a1 = load8(b1 + j + 8), a2 = load8(b1 + j + 16), a3 = load8(b1 + j + 24);
        for (int i = 0; i < k; i++) {
            const float *row = w1t + (size_t)idx[i] * h + j;
            const float v = val[i];
            if (v == 1.0f) {
                a0 += load8(row);
                a1 += load8(row + 8);
                a2 += load8(row + 16);
                a3 += load8(row + 24);
            } else {
                v8 vv = {v, v, v, v, v, v, v, v};
                a0 += vv * load8(row);
                a1 += vv * load8(row + 8);
                a2 += vv * load8(row + 16);
                a3 += vv * load8(row + 24);
            }
        }
        store8(acc + j, a0);
        store8(acc + j + 8, a1);
        store8(acc + j + 16, a2);
        store8(acc + j + 24, a3);
    }
    for (; j < h; j++) {
        float a = b1[j];
        for (int i = 0; i < k; i++) a += val[i] * w1t[(size_t)idx[i] * h + j];
        acc[j] = a;
    }
    for (j = 0; j < h; j++) acc[j] = acc[j] > 0.0f ? acc[j] : 0.0f;
    for (int o = 0; o < 5; o++) {
        const float *w = w2 + (size_t)o * h;
        v8 z = {0, 0, 0, 0, 0, 0, 0, 0};
        for (j = 0; j + 8 <= h; j += 8) z += load8(acc + j) * load8(w + j);
        float lanes[8], t = 0.0f;
        store8(lanes, z);
        for (int l = 0; l < 8; l++) t += lanes[l];
        for (; j < h; j++) t += acc[j] * w[j];
        logits[o] = t;
    }
}

static float sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

static PyObject *f_forward(PyObject *self, PyObject *args) {
    Py_buffer boards, w1t, b1, w2, b2, out;
    int version, hidden;
    if (!PyArg_ParseTuple(args, "y*iy*y*y*y*iw*", &boards, &version, &w1t, &b1, &w2, &b2, &hidden, &out))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = boards.len / 50;
    int nextra = version == 2 ? 2 * NF : 0;
    int features = BASE + nextra;
    const char *err = NULL;
    if (boards.len % 50) err = "boards must be a multiple of 50 bytes";
    else if (version != 1 && version != 2) err = "the C encoding knows versions 1 and 2";
    else if (hidden < 1 || hidden > 4096) err = "bad hidden size";
    else if (w1t.len != (Py_ssize_t)features * hidden * (Py_ssize_t)sizeof(float)) err = "w1t has the wrong size";
    else if (b1.len != hidden * (Py_ssize_t)sizeof(float)) err = "b1 has the wrong size";
    else if (w2.len != 5 * hidden * (Py_ssize_t)sizeof(float)) err = "w2 has the wrong size";
    else if (b2.len != 5 * (Py_ssize_t)sizeof(float)) err = "b2 has the wrong size";
    else if (out.len != n * 5 * (Py_ssize_t)sizeof(double)) err = "out has the wrong size";
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        goto done;
    }
    float *acc = malloc((size_t)hidden * sizeof(float));
    if (!acc) {
        PyErr_NoMemory();
        goto done;
    }
    const uint8_t *bp = boards.buf;
    const float *W1 = w1t.buf, *B1 = b1.buf, *W2 = w2.buf, *B2 = b2.buf;
    double *op = out.buf;
    Py_BEGIN_ALLOW_THREADS
    int idx[MAXNZ];
    float val[MAXNZ];
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint8_t *mine = bp + 50 * i, *theirs = mine + 25;
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
        float extra[2 * NF];
        if (nextra) {
            side_features_fast(mine, theirs, extra);
            side_features_fast(theirs, mine, extra + NF);
        }
        for (int e = 0; e < nextra; e++) {
            float x = extra[e];
            if (x != 0.0f) {
                idx[k] = BASE + e;
                val[k++] = x;
            }
        }
        float c[5];
        layers(idx, val, k, W1, B1, hidden, W2, acc, c);
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
    free(acc);
    Py_INCREF(Py_None);
    result = Py_None;
done:
    PyBuffer_Release(&boards);
    PyBuffer_Release(&w1t);
    PyBuffer_Release(&b1);
    PyBuffer_Release(&w2);
    PyBuffer_Release(&b2);
    PyBuffer_Release(&out);
    return result;
}

/* flags(boards, two_points, two_max) -> bytes, one byte of FLAG_* bits per board. */
enum {
    FLAG_WON = 1,       /* the player on roll has borne off every checker */
    FLAG_LOST = 2,      /* the opponent has */
    FLAG_HOME = 4,      /* both sides have every checker on points 1..6 (or off) */
    FLAG_TWO = 8,       /* both sides: at most two_max checkers, all on points 1..two_points */
    FLAG_CONTACT = 16,  /* some checker must still pass an opposing one (encoding.contact) */
    FLAG_MINE_OFF = 32, /* the player on roll has borne off a checker */
    FLAG_THEIRS_OFF = 64
};

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
        if (mb >= 0 && tb >= 0 && mb + tb >= 23) x |= FLAG_CONTACT;
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
     "forward(boards, version, w1t, b1, w2, b2, hidden, out): one-hidden-layer net, probabilities into out"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef forward_module = {PyModuleDef_HEAD_INIT, "_forward",
                                            "Encoding and forward pass of pulvezar's nets in C.", -1,
                                            forward_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__forward(void) {
    init_rolls();
    PyObject *m = PyModule_Create(&forward_module);
    if (m) {
        PyModule_AddIntConstant(m, "BASE", BASE);
        PyModule_AddIntConstant(m, "FLAG_WON", FLAG_WON);
        PyModule_AddIntConstant(m, "FLAG_LOST", FLAG_LOST);
        PyModule_AddIntConstant(m, "FLAG_HOME", FLAG_HOME);
        PyModule_AddIntConstant(m, "FLAG_TWO", FLAG_TWO);
        PyModule_AddIntConstant(m, "FLAG_CONTACT", FLAG_CONTACT);
        PyModule_AddIntConstant(m, "FLAG_MINE_OFF", FLAG_MINE_OFF);
        PyModule_AddIntConstant(m, "FLAG_THEIRS_OFF", FLAG_THEIRS_OFF);
    }
    return m;
}
