/*
 * pulvezar.eval._features: hand-made features of the encoding (v2), computed
 * in C for whole batches.
 *
 * features(boards: bytes of N*50, n) -> bytes of N*2*NF float32
 *
 * For each board, first for the player on roll ("mine"), then for the
 * opponent, each seen from its own side S with the other side O:
 *   0  shots:       rolls (of 36) with which O hits at least one blot of S
 *                   next turn (direct, combined and doubled shots; a combined
 *                   shot needs an open intermediate point; with O on the bar
 *                   only the entering checker is counted), / 36
 *   1  prime:       S's longest run of made points (>= 2 checkers), / 6
 *   2  blockade:    O's longest run of made points in front of S's rearmost
 *                   checker, / 6
 *   3  anchors:     S's made points in O's home board, / 3
 *   4  escapes:     rolls (of 36) with which S's rearmost checker gets below
 *                   every O made point in the 12 points ahead of it (36 when
 *                   there is none), / 36
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NF 5

/* s[i], o[i]: checkers of S and O on S's point i (1..24); s[25] = S's bar,
 * o[0] = O's bar (O enters on S's points 1..6 and moves upwards). */
typedef struct {
    int s[26];
    int o[26];
} View;

static void make_view(const uint8_t *self, const uint8_t *other, View *v) {
    memset(v, 0, sizeof *v);
    for (int p = 1; p <= 24; p++) {
        v->s[p] = self[p - 1];
        v->o[p] = other[24 - p]; /* O's point 25 - p is S's point p */
    }
    v->s[25] = self[24];
    v->o[0] = other[24];
}

static int blocked_for_o(const View *v, int p) { return p >= 1 && p <= 24 && v->s[p] >= 2; }

/* Bitmask (bit p = S's point p) of the points an O checker at q reaches with
 * (d1, d2): direct, combined (an open intermediate point) and doubled moves.
 * With O on the bar (q > 0 and o_bar), only the entering checker moves; with
 * two or more on the bar it cannot move on after entering. */
static uint32_t reach(const View *v, int q, int d1, int d2) {
    uint32_t m = 0;
    int several_on_bar = q == 0 && v->o[0] > 1;
    if (d1 == d2) {
        int at = q;
        for (int k = 1; k <= 4; k++) {
            at += d1;
            if (at > 24 || blocked_for_o(v, at)) break;
            m |= 1u << at;
            if (several_on_bar) break;
        }
        return m;
    }
    int a = q + d1, b = q + d2;
    int open_a = a <= 24 && !blocked_for_o(v, a), open_b = b <= 24 && !blocked_for_o(v, b);
    if (open_a) m |= 1u << a;
    if (open_b) m |= 1u << b;
    if (!several_on_bar && (open_a || open_b) && q + d1 + d2 <= 24) m |= 1u << (q + d1 + d2);
    return m;
}

static double shots(const View *v) {
    uint32_t blots = 0;
    for (int p = 1; p <= 24; p++)
        if (v->s[p] == 1) blots |= 1u << p;
    if (!blots) return 0.0;
    int sources[25], ns = 0;
    if (v->o[0] > 0) {
        sources[ns++] = 0; /* O must enter first */
    } else {
        for (int q = 1; q <= 23; q++)
            if (v->o[q]) sources[ns++] = q;
    }
    int count = 0;
    for (int d1 = 1; d1 <= 6; d1++) {
        for (int d2 = d1; d2 <= 6; d2++) {
            uint32_t hit = 0;
            for (int k = 0; k < ns && !(hit & blots); k++) hit |= reach(v, sources[k], d1, d2);
            if (hit & blots) count += d1 == d2 ? 1 : 2;
        }
    }
    return count / 36.0;
}

static int longest_run(const int *c, int lo, int hi) {
    int best = 0, run = 0;
    for (int p = lo; p <= hi; p++) {
        run = c[p] >= 2 ? run + 1 : 0;
        if (run > best) best = run;
    }
    return best;
}

/* S's rearmost checker (25 = bar), 0 if none. */
static int rearmost(const View *v) {
    for (int p = 25; p >= 1; p--)
        if (v->s[p]) return p;
    return 0;
}

/* O's made points as S sees them, for the blockade in front of S's checker at r. */
static double blockade(const View *v, int r) {
    int c[26] = {0};
    for (int p = 1; p <= 24; p++) c[p] = v->o[p];
    return longest_run(c, 1, r - 1) / 6.0;
}

/* Rolls with which the checker at r gets below every O made point in the 12
 * points ahead of it (1.0 when there is none: it is free). */
static double escapes(const View *v, int r) {
    int last = 0;
    int lo = r - 12 < 1 ? 1 : r - 12;
    for (int p = lo; p < r && p <= 24; p++)
        if (v->o[p] >= 2) {
            last = p;
            break;
        }
    if (!last) return 1.0;
    int count = 0;
    for (int d1 = 1; d1 <= 6; d1++)
        for (int d2 = d1; d2 <= 6; d2++) {
            int ok = 0;
            int steps = d1 == d2 ? 4 : 2;
            /* try the orders (d1, d2), (d2, d1); doubles move one checker up to 4 times */
            for (int order = 0; order < (d1 == d2 ? 1 : 2) && !ok; order++) {
                int at = r;
                for (int k = 0; k < steps; k++) {
                    int d = (d1 == d2) ? d1 : ((k == 0) ^ order ? d1 : d2);
                    int to = at - d;
                    if (to >= 1 && v->o[to] >= 2) break;
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

/* The five features of one side; ``count_shots`` counts the hitting rolls (shots() here; _forward.c
 * passes its faster equivalent). */
static void side_features_with(const uint8_t *self, const uint8_t *other, float *out,
                               double (*count_shots)(const View *)) {
    View v;
    make_view(self, other, &v);
    int r = rearmost(&v);
    int anchors = 0;
    for (int p = 19; p <= 24; p++) anchors += v.s[p] >= 2;
    out[0] = (float)count_shots(&v);
    out[1] = (float)(longest_run(v.s, 1, 24) / 6.0);
    out[2] = (float)(r ? blockade(&v, r) : 0.0);
    out[3] = (float)(anchors / 3.0);
    out[4] = (float)(r ? escapes(&v, r) : 0.0);
}

static void side_features(const uint8_t *self, const uint8_t *other, float *out) {
    side_features_with(self, other, out, shots);
}

static PyObject *f_features(PyObject *self, PyObject *args) {
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "y*", &view)) return NULL;
    if (view.len % 50) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "boards must be a multiple of 50 bytes");
        return NULL;
    }
    Py_ssize_t n = view.len / 50;
    PyObject *out = PyBytes_FromStringAndSize(NULL, n * 2 * NF * (Py_ssize_t)sizeof(float));
    if (!out) {
        PyBuffer_Release(&view);
        return NULL;
    }
    float *f = (float *)PyBytes_AS_STRING(out);
    const uint8_t *b = (const uint8_t *)view.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        const uint8_t *mine = b + 50 * i, *theirs = b + 50 * i + 25;
        side_features(mine, theirs, f + 2 * NF * i);
        side_features(theirs, mine, f + 2 * NF * i + NF);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"features", f_features, METH_VARARGS, "features(boards) -> float32 bytes, 2*NF per board"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_features",
                                    "Hand-made position features in C.", -1, methods};

PyMODINIT_FUNC PyInit__features(void) {
    PyObject *m = PyModule_Create(&module);
    if (m) PyModule_AddIntConstant(m, "NF", NF);
    return m;
}
