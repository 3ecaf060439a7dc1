/*
 * pulvezar.rules._kernel: the compiled hot path of the rules core.
 *
 * Boards are 50 bytes: bytes 0..24 are the checkers of the player on roll,
 * bytes 25..49 those of the opponent, each side counted from its own point of
 * view (byte i = point i+1, byte 24 = the bar).  Checkers off are implied
 * (15 minus those on the board).
 *
 * generate(board, d1, d2, flags) -> bytes
 *     All legal plays of one roll, one record of REC bytes per distinct
 *     resulting position (the mover's view, before the turn passes):
 *       [0:50]  resulting board
 *       [50]    number of checker moves (0..4)
 *       [51:59] the moves in the order played: (from, to) point pairs,
 *               from 1..25 (25 = bar), to 0..24 (0 = off)
 *       [59]    bit k set when move k hit a blot
 *       [60]    sum of the pips of the dice used
 *     flags: 1 = Tavla "hit and stop", 2 = Tavla "must bear off".
 * position_id(board) -> str / board_from_position_id(str) -> bytes
 *     GNU Backgammon's 14-character Position ID.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NPTS 25
#define BAR 24
#define BOARD 50
#define REC 64

#define F_HIT_AND_STOP 1
#define F_MUST_BEAR_OFF 2

typedef struct {
    uint8_t me[NPTS];
    uint8_t op[NPTS];
} Board;

typedef struct {
    uint8_t *data;      /* records */
    Py_ssize_t n, cap;
    uint32_t *table;    /* open addressing: index+1, 0 = empty */
    Py_ssize_t tcap;
    int best_moves, best_pips;
    int flags;
    /* the sequence being built */
    uint8_t from[4], to[4];
    uint8_t hits;
    uint8_t frozen[NPTS];
} Gen;

static uint64_t board_hash(const Board *b) {
    /* 50 bytes as six 64-bit words and one 16-bit tail, mixed multiplicatively */
    uint64_t w[7] = {0};
    memcpy(w, b, BOARD);
    uint64_t h = 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 7; i++) {
        h ^= w[i];
        h *= 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    return h;
}

static int gen_reset(Gen *g) {
    if (g->n) memset(g->table, 0, sizeof(uint32_t) * g->tcap);
    g->n = 0;
    return 0;
}

static int table_grow(Gen *g) {
    Py_ssize_t ncap = g->tcap * 2;
    uint32_t *nt = (uint32_t *)PyMem_Calloc(ncap, sizeof(uint32_t));
    if (!nt) return -1;
    for (Py_ssize_t i = 0; i < g->n; i++) {
        uint64_t h = board_hash((const Board *)(g->data + i * REC));
        Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(ncap - 1));
        while (nt[j]) j = (j + 1) & (ncap - 1);
        nt[j] = (uint32_t)(i + 1);
    }
    PyMem_Free(g->table);
    g->table = nt;
    g->tcap = ncap;
    return 0;
}

/* Record a finished sequence of nmoves moves worth pips pips. */
static int record(Gen *g, const Board *b, int nmoves, int pips) {
    if (nmoves < g->best_moves || (nmoves == g->best_moves && pips < g->best_pips))
        return 0;
    if (nmoves > g->best_moves || pips > g->best_pips) {
        g->best_moves = nmoves;
        g->best_pips = pips;
        gen_reset(g);
    }
    uint64_t h = board_hash(b);
    Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(g->tcap - 1));
    while (g->table[j]) {
        const uint8_t *r = g->data + (g->table[j] - 1) * REC;
        if (memcmp(r, b, BOARD) == 0) return 0;
        j = (j + 1) & (g->tcap - 1);
    }
    if (g->n == g->cap) {
        Py_ssize_t ncap = g->cap * 2;
        uint8_t *nd = (uint8_t *)PyMem_Realloc(g->data, ncap * REC);
        if (!nd) return -1;
        g->data = nd;
        g->cap = ncap;
    }
    uint8_t *r = g->data + g->n * REC;
    memset(r, 0, REC);
    memcpy(r, b, BOARD);
    r[50] = (uint8_t)nmoves;
    for (int k = 0; k < nmoves; k++) {
        r[51 + 2 * k] = g->from[k];
        r[52 + 2 * k] = g->to[k];
    }
    r[59] = g->hits & ((1 << nmoves) - 1);
    r[60] = (uint8_t)pips;
    g->table[j] = (uint32_t)(g->n + 1);
    g->n++;
    if (g->n * 2 > g->tcap) return table_grow(g);
    return 0;
}

/* Index of the highest occupied point of the mover (-1 if none on board). */
static int highest(const Board *b) {
    for (int i = BAR; i >= 0; i--)
        if (b->me[i]) return i;
    return -1;
}

/* Can checker at index i move with die d?  Returns target index (-1 = off)
 * or -2 when not legal.  hi is the highest occupied index. */
static int target(const Gen *g, const Board *b, int i, int d, int hi) {
    if (b->me[i] <= g->frozen[i]) return -2;
    if (b->me[BAR] && i != BAR) return -2;
    int t = i - d;
    if (t >= 0) {
        if (b->op[23 - t] >= 2) return -2;
        return t;
    }
    /* bear off: all checkers in the home board */
    if (hi > 5) return -2;
    if (t == -1 || i == hi) return -1;
    return -2;
}

/* With all checkers home, can die d bear a checker off?  (Checkers frozen by
 * hit-and-stop cannot move, so they cannot be borne off either.) */
static int can_bear_off(const Gen *g, const Board *b, int d, int hi) {
    if (hi > 5 || hi < 0) return 0;
    if (b->me[d - 1] > g->frozen[d - 1]) return 1;
    return hi < d - 1 && b->me[hi] > g->frozen[hi];
}

static void apply(Board *b, int i, int t, Gen *g, int depth) {
    b->me[i]--;
    g->from[depth] = (uint8_t)(i + 1);
    if (t < 0) {
        g->to[depth] = 0;
        return;
    }
    b->me[t]++;
    g->to[depth] = (uint8_t)(t + 1);
    if (b->op[23 - t] == 1) {
        b->op[23 - t] = 0;
        b->op[BAR]++;
        g->hits |= (uint8_t)(1 << depth);
        if ((g->flags & F_HIT_AND_STOP) && t <= 5) g->frozen[t]++;
    }
}

static int search(Gen *g, const Board *b, const int *dice, int ndice, int depth,
                  int pips, int max_from) {
    if (depth == ndice) return record(g, b, depth, pips);
    int d = dice[depth];
    int hi = highest(b);
    int found = 0;
    int forced_off = (g->flags & F_MUST_BEAR_OFF) && can_bear_off(g, b, d, hi);
    int top = max_from < BAR ? max_from : BAR;
    for (int i = top; i >= 0; i--) {
        if (!b->me[i]) continue;
        int t = target(g, b, i, d, hi);
        if (t == -2) continue;
        if (forced_off && t >= 0) continue;
        found = 1;
        Board nb = *b;
        uint8_t hits = g->hits;
        uint8_t fz = t >= 0 ? g->frozen[t] : 0;
        apply(&nb, i, t, g, depth);
        /* doubles: checkers move in non-increasing order of their start point,
         * which loses no result -- except under must_bear_off, where a forced
         * bear-off from a low point may have to precede a move from a higher one */
        int next_max = (ndice == 4 && !(g->flags & F_MUST_BEAR_OFF)) ? i : BAR;
        if (search(g, &nb, dice, ndice, depth + 1, pips + d, next_max) < 0) return -1;
        g->hits = hits;
        if (t >= 0) g->frozen[t] = fz;
        if (b->me[BAR]) break; /* bar checker: one entry per die suffices */
    }
    if (!found) return record(g, b, depth, pips);
    return 0;
}

/* Buffers live across calls: generate() holds the GIL, so one set suffices. */
static uint8_t *g_data = NULL;
static Py_ssize_t g_cap = 0;
static uint32_t *g_table = NULL;
static Py_ssize_t g_tcap = 0;

static int gen_init(Gen *g, int flags) {
    if (!g_data) {
        g_cap = 256;
        g_data = (uint8_t *)PyMem_Malloc(g_cap * REC);
        g_tcap = 1024;
        g_table = (uint32_t *)PyMem_Calloc(g_tcap, sizeof(uint32_t));
        if (!g_data || !g_table) {
            PyErr_NoMemory();
            return -1;
        }
    }
    g->data = g_data;
    g->cap = g_cap;
    g->table = g_table;
    g->tcap = g_tcap;
    g->n = 0;
    g->best_moves = 0;
    g->best_pips = 0;
    g->flags = flags;
    g->hits = 0;
    memset(g->frozen, 0, sizeof(g->frozen));
    return 0;
}

/* Keep grown buffers for the next call and leave the table empty. */
static void gen_free(Gen *g) {
    g_data = g->data;
    g_cap = g->cap;
    g_table = g->table;
    g_tcap = g->tcap;
    if (g->n * 8 < g->tcap) {
        for (Py_ssize_t i = 0; i < g->n; i++) {
            uint64_t h = board_hash((const Board *)(g->data + i * REC));
            Py_ssize_t j = (Py_ssize_t)(h & (uint64_t)(g->tcap - 1));
            while (g->table[j]) {
                g->table[j] = 0;
                j = (j + 1) & (g->tcap - 1);
            }
        }
    } else {
        memset(g->table, 0, sizeof(uint32_t) * g->tcap);
    }
}

static int get_board(PyObject *obj, Board *b) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) < 0) return -1;
    if (view.len != BOARD) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "board must be 50 bytes");
        return -1;
    }
    memcpy(b, view.buf, BOARD);
    PyBuffer_Release(&view);
    return 0;
}

static PyObject *k_generate(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "generate(board, d1, d2, flags)");
        return NULL;
    }
    Board b;
    if (get_board(args[0], &b) < 0) return NULL;
    long d1 = PyLong_AsLong(args[1]), d2 = PyLong_AsLong(args[2]), flags = PyLong_AsLong(args[3]);
    if (PyErr_Occurred()) return NULL;
    if (d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6) {
        PyErr_SetString(PyExc_ValueError, "dice must be 1..6");
        return NULL;
    }
    Gen g;
    if (gen_init(&g, (int)flags) < 0) return NULL;
    int rc;
    if (d1 == d2) {
        int dice[4] = {(int)d1, (int)d1, (int)d1, (int)d1};
        rc = search(&g, &b, dice, 4, 0, 0, BAR);
    } else {
        int hi = d1 > d2 ? (int)d1 : (int)d2, lo = d1 > d2 ? (int)d2 : (int)d1;
        int a[2] = {hi, lo}, c[2] = {lo, hi};
        rc = search(&g, &b, a, 2, 0, 0, BAR);
        if (rc == 0) rc = search(&g, &b, c, 2, 0, 0, BAR);
    }
    if (rc < 0) {
        gen_free(&g);
        return PyErr_NoMemory();
    }
    PyObject *out = PyBytes_FromStringAndSize((const char *)g.data, g.n * REC);
    gen_free(&g);
    return out;
}

/* ---- GNU Backgammon Position ID ---------------------------------------- */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The 80-bit key: for the opponent, then the player on roll, for points 1..24
 * and the bar, as many 1 bits as checkers followed by a 0 bit, least
 * significant bit of each byte first. */
static int make_key(const Board *b, uint8_t key[10]) {
    memset(key, 0, 10);
    int bit = 0;
    const uint8_t *sides[2] = {b->op, b->me};
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < NPTS; i++) {
            for (int c = 0; c < sides[s][i]; c++) {
                if (bit >= 80) return -1;
                key[bit >> 3] |= (uint8_t)(1 << (bit & 7));
                bit++;
            }
            bit++;
        }
    }
    return bit <= 80 ? 0 : -1;
}

static PyObject *k_position_id(PyObject *self, PyObject *arg) {
    Board b;
    if (get_board(arg, &b) < 0) return NULL;
    uint8_t key[10];
    if (make_key(&b, key) < 0) {
        PyErr_SetString(PyExc_ValueError, "too many checkers for a Position ID");
        return NULL;
    }
    char out[14];
    for (int i = 0; i < 3; i++) {
        const uint8_t *k = key + 3 * i;
        out[4 * i] = B64[k[0] >> 2];
        out[4 * i + 1] = B64[((k[0] & 3) << 4) | (k[1] >> 4)];
        out[4 * i + 2] = B64[((k[1] & 0xF) << 2) | (k[2] >> 6)];
        out[4 * i + 3] = B64[k[2] & 0x3F];
    }
    out[12] = B64[key[9] >> 2];
    out[13] = B64[(key[9] & 3) << 4];
    return PyUnicode_FromStringAndSize(out, 14);
}

static int b64val(int c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

static PyObject *k_board_from_position_id(PyObject *self, PyObject *arg) {
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!s) return NULL;
    if (len != 14) {
        PyErr_Format(PyExc_ValueError, "a Position ID has 14 characters, not %zd", len);
        return NULL;
    }
    int v[14];
    for (int i = 0; i < 14; i++) {
        v[i] = b64val((unsigned char)s[i]);
        if (v[i] < 0) {
            PyErr_Format(PyExc_ValueError, "character %d of the Position ID is not base64", i + 1);
            return NULL;
        }
    }
    if (v[13] & 0xF) {
        PyErr_SetString(PyExc_ValueError, "the Position ID has bits set past its 80-bit key");
        return NULL;
    }
    uint8_t key[10];
    for (int i = 0; i < 3; i++) {
        key[3 * i] = (uint8_t)((v[4 * i] << 2) | (v[4 * i + 1] >> 4));
        key[3 * i + 1] = (uint8_t)(((v[4 * i + 1] & 0xF) << 4) | (v[4 * i + 2] >> 2));
        key[3 * i + 2] = (uint8_t)(((v[4 * i + 2] & 3) << 6) | v[4 * i + 3]);
    }
    key[9] = (uint8_t)((v[12] << 2) | (v[13] >> 4));
    Board b;
    memset(&b, 0, sizeof b);
    uint8_t *sides[2] = {b.op, b.me};
    int s_i = 0, p = 0;
    for (int bit = 0; bit < 80 && s_i < 2; bit++) {
        if (key[bit >> 3] & (1 << (bit & 7))) {
            if (sides[s_i][p] == 255) break;
            sides[s_i][p]++;
        } else if (++p == NPTS) {
            p = 0;
            s_i++;
        }
    }
    if (s_i < 2) {
        PyErr_SetString(PyExc_ValueError, "the Position ID does not describe two sides");
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)&b, BOARD);
}

static PyMethodDef methods[] = {
    {"generate", (PyCFunction)(void (*)(void))k_generate, METH_FASTCALL,
     "generate(board, d1, d2, flags) -> bytes of 64-byte play records"},
    {"position_id", k_position_id, METH_O, "position_id(board) -> 14-char Position ID"},
    {"board_from_position_id", k_board_from_position_id, METH_O,
     "board_from_position_id(str) -> 50-byte board"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernel",
                                    "Compiled move generation and position keys.", -1, methods};

PyMODINIT_FUNC PyInit__kernel(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyModule_AddIntConstant(m, "REC", REC);
    PyModule_AddIntConstant(m, "HIT_AND_STOP", F_HIT_AND_STOP);
    PyModule_AddIntConstant(m, "MUST_BEAR_OFF", F_MUST_BEAR_OFF);
    return m;
}
