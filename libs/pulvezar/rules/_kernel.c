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
 * generate_many(boards, dice, flags) -> (bytes, bytes)
 *     generate() for N boards (N*50 bytes) and N rolls (N*2 bytes, dice 1..6) at
 *     once: the resulting boards only (50 bytes each, every board's plays in
 *     generate()'s order, board after board) and the number of plays of each
 *     board (N int64).
 * position_id(board) -> str / board_from_position_id(str) -> bytes
 *     GNU Backgammon's 14-character Position ID.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "movegen.h"

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
    int on_board[2] = {0, 0};
    for (int i = 0; i < NPTS; i++) {
        on_board[0] += b.me[i];
        on_board[1] += b.op[i];
    }
    if (!on_board[0] || !on_board[1]) {
        PyErr_SetString(PyExc_ValueError, "the game is over: one side has borne off all its checkers");
        return NULL;
    }
    Gen g;
    if (gen_init(&g, (int)flags) < 0) return NULL;
    int rc = movegen_generate(&g, &b, (int)d1, (int)d2);
    if (rc < 0) {
        gen_free(&g);
        return PyErr_NoMemory();
    }
    PyObject *out = PyBytes_FromStringAndSize((const char *)g.data, g.n * REC);
    gen_free(&g);
    return out;
}

static PyObject *k_generate_many(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "generate_many(boards, dice, flags)");
        return NULL;
    }
    long flags = PyLong_AsLong(args[2]);
    if (PyErr_Occurred()) return NULL;
    Py_buffer bv, dv;
    if (PyObject_GetBuffer(args[0], &bv, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(args[1], &dv, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&bv);
        return NULL;
    }
    PyObject *result = NULL, *counts = NULL;
    uint8_t *out = NULL;
    Py_ssize_t n = bv.len / BOARD, used = 0, cap = 0;
    const char *err = NULL;
    if (bv.len % BOARD) err = "boards must be a multiple of 50 bytes";
    else if (dv.len != 2 * n) err = "dice must be 2 bytes per board";
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        goto done;
    }
    counts = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int64_t));
    if (!counts) goto done;
    int64_t *cnt = (int64_t *)PyBytes_AS_STRING(counts);
    const uint8_t *bp = bv.buf, *dp = dv.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        Board b;
        memcpy(&b, bp + i * BOARD, BOARD);
        int d1 = dp[2 * i], d2 = dp[2 * i + 1], on_me = 0, on_op = 0;
        for (int j = 0; j < NPTS; j++) {
            on_me += b.me[j];
            on_op += b.op[j];
        }
        if (d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6) err = "dice must be 1..6";
        else if (!on_me || !on_op) err = "the game is over: one side has borne off all its checkers";
        if (err) {
            PyErr_SetString(PyExc_ValueError, err);
            goto done;
        }
        Gen g;
        if (gen_init(&g, (int)flags) < 0) goto done;
        if (movegen_generate(&g, &b, d1, d2) < 0) {
            gen_free(&g);
            PyErr_NoMemory();
            goto done;
        }
        if (used + g.n > cap) {
            Py_ssize_t want = 2 * (used + g.n) + 1024;
            uint8_t *grown = PyMem_Realloc(out, (size_t)want * BOARD);
            if (!grown) {
                gen_free(&g);
                PyErr_NoMemory();
                goto done;
            }
            out = grown;
            cap = want;
        }
        for (Py_ssize_t r = 0; r < g.n; r++) memcpy(out + (used + r) * BOARD, g.data + r * REC, BOARD);
        used += g.n;
        cnt[i] = g.n;
        gen_free(&g);
    }
    PyObject *boards = PyBytes_FromStringAndSize((const char *)out, used * BOARD);
    if (boards) result = PyTuple_Pack(2, boards, counts);
    Py_XDECREF(boards);
done:
    Py_XDECREF(counts);
    PyMem_Free(out);
    PyBuffer_Release(&bv);
    PyBuffer_Release(&dv);
    return result;
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
    {"generate_many", (PyCFunction)(void (*)(void))k_generate_many, METH_FASTCALL,
     "generate_many(boards, dice, flags) -> (resulting boards, int64 counts)"},
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
