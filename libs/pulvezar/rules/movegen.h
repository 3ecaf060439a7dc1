/*
 * movegen.h: pulvezar's legal-play generator, shared by the compiled modules
 * that need it (the rules kernel, the bear-off database builder).
 *
 * Boards are 50 bytes: bytes 0..24 are the checkers of the player on roll,
 * bytes 25..49 those of the opponent, each side counted from its own point of
 * view (byte i = point i+1, byte 24 = the bar).  A generated play is a record
 * of REC bytes (layout in _kernel.c).  Include after <Python.h>.
 */
#ifndef PULVEZAR_MOVEGEN_H
#define PULVEZAR_MOVEGEN_H

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

/* All legal plays of (d1, d2) from b into g (gen_init first, gen_free after).
 * Returns 0, or -1 when out of memory. */
static int movegen_generate(Gen *g, const Board *b, int d1, int d2) {
    if (d1 == d2) {
        int dice[4] = {d1, d1, d1, d1};
        return search(g, b, dice, 4, 0, 0, BAR);
    }
    int hi = d1 > d2 ? d1 : d2, lo = d1 > d2 ? d2 : d1;
    int a[2] = {hi, lo}, c[2] = {lo, hi};
    if (search(g, b, a, 2, 0, 0, BAR) < 0) return -1;
    return search(g, b, c, 2, 0, 0, BAR);
}

#endif /* PULVEZAR_MOVEGEN_H */
