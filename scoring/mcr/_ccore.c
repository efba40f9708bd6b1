/*
 * _ccore: the compiled core of the MCR fast path (fast.py, glue in ccore.py).
 *
 * It computes exactly what fast._fast computes for one hand: every reading of the standing tiles (in the
 * divider's order, shapes.candidates), every fan predicate of fans_*.py on each reading, the 不计 step
 * (tally.apply_excludes), 无番和, the implied-pung adjustment (tally.add_implied) and the best reading
 * (highest total, the first of equal ones). Anything it does not take (input that is not plain, a hand that
 * fails a check) it answers with None, and Python judges the hand.
 *
 * Data layout
 * -----------
 * Tiles are ids 0..33: 0-8 characters, 9-17 dots, 18-26 bamboo, 27-30 winds (E S W N), 31-33 dragons.
 * A hand is read from its plain Python objects: the tuple of standing tile ints, the winning tile int and the
 * tuple of Meld objects (kind, tile, concealed, source, claimed). Inside, it is three arrays of 34 counts
 * (standing without the winning tile, standing with it, every tile with kongs as 4) and the melds' sets.
 * A reading is its form, its standing sets as (kind, tile) with kind 0 = chow (tile = lowest) and 1 = pung,
 * its pair (-1: none) and its knitted straight (index into KNIT, -1: none).
 *
 * Fans are named by the enum FAN_LIST (the fan ids of fans_*.py). Python gives, once (init), each fan's row
 * in tally.FAN_TABLE, its "rank": table order, high value first, the order of the 不计 step, and each row's
 * value; and per profile (set_profile) the active fans, the 不计 lists by rank and the profile's switches.
 * A reading's fans are counts indexed by rank with a 128-bit presence mask, so the 不计 step walks set bits.
 *
 * The Situation flags arrive checked (fans_situation.flags_for, run by Python): a buffer of 40 masks, one per
 * combination of the four tile facts the checks read (winning tile standing, copies of it in the melds 0..4,
 * a declared kong, any meld); the core computes the facts and picks its mask. A mask of 0xFF is not checked
 * yet: the core then returns the facts' index alone, Python checks those flags and calls again.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define FAN_LIST(X) \
    X(big_four_winds) X(big_three_dragons) X(all_green) X(nine_gates) X(four_kongs) \
    X(seven_shifted_pairs) X(thirteen_orphans) X(all_terminals) X(little_four_winds) \
    X(little_three_dragons) X(all_honors) X(four_concealed_pungs) X(pure_terminal_chows) \
    X(quadruple_chow) X(four_pure_shifted_pungs) X(four_pure_shifted_chows) X(three_kongs) \
    X(all_terminals_and_honors) X(seven_pairs) X(greater_honors_knitted) X(all_even_pungs) \
    X(full_flush) X(pure_triple_chow) X(pure_shifted_pungs) X(upper_tiles) X(middle_tiles) \
    X(lower_tiles) X(pure_straight) X(three_suited_terminal_chows) X(pure_shifted_chows) \
    X(all_five) X(triple_pung) X(three_concealed_pungs) X(lesser_honors_knitted) \
    X(knitted_straight) X(upper_four) X(lower_four) X(big_three_winds) X(mixed_straight) \
    X(reversible_tiles) X(mixed_triple_chow) X(mixed_shifted_pungs) X(chicken_hand) \
    X(last_tile_draw) X(last_tile_claim) X(out_with_replacement_tile) X(robbing_the_kong) \
    X(all_pungs) X(half_flush) X(mixed_shifted_chows) X(all_types) X(melded_hand) \
    X(two_concealed_kongs) X(two_dragons_pungs) X(concealed_kong_and_melded_kong) \
    X(outside_hand) X(fully_concealed_hand) X(two_melded_kongs) X(last_tile) X(dragon_pung) \
    X(prevalent_wind) X(seat_wind) X(concealed_hand) X(all_chows) X(tile_hog) X(double_pung) \
    X(two_concealed_pungs) X(concealed_kong) X(all_simples) X(pure_double_chow) \
    X(mixed_double_chow) X(short_straight) X(two_terminal_chows) X(pung_terminals_honors) \
    X(melded_kong) X(one_voided_suit) X(no_honors) X(edge_wait) X(closed_wait) X(single_wait) \
    X(self_drawn) X(heavenly_hand) X(all_knitted_full) X(green_seven_pairs) \
    X(honors_seven_pairs_full) X(earthly_hand) X(honors_seven_pairs) X(terminals_seven_pairs) \
    X(human_hand) X(all_odd_pungs) X(implied_terminal_pung)

#define X_ENUM(name) F_##name,
enum { FAN_LIST(X_ENUM) NF };
#define X_NAME(name) #name,
static const char *FAN_NAMES[NF] = { FAN_LIST(X_NAME) };

#define MAX_RANKS 128           /* rows of FAN_TABLE */
#define MAX_PROFILES 64           /* profile slots (Profile objects set up) */
#define MAX_EXCL 1024           /* 不计 entries of one profile, all rows together */
#define MAX_SPLITS 64           /* readings of one suit */
#define MAX_READINGS 512

enum { CHOW = 0, PUNG = 1 };
enum { REGULAR, SEVEN_PAIRS, THIRTEEN_ORPHANS, HONORS_KNITTED, KNITTED_STRAIGHT };
enum { W_NONE, W_EDGE, W_CLOSED, W_SINGLE };
/* the checked Situation flags, as the bits of a mask */
enum { FL_LAST_TILE = 1, FL_KONG_REPLACEMENT = 2, FL_ROBBING_KONG = 4, FL_LAST_COPY = 8, FL_HEAVENLY = 16,
       FL_EARTHLY = 32, FL_HUMAN = 64 };

#define BIT(t) (1ULL << (t))
#define M_HONORS (0x7FULL << 27)
#define M_WINDS (0xFULL << 27)
#define M_DRAGONS (0x7ULL << 31)
#define M_SUITED ((1ULL << 27) - 1)
#define M_TERMINALS (BIT(0) | BIT(8) | BIT(9) | BIT(17) | BIT(18) | BIT(26))
#define M_GREEN (BIT(19) | BIT(20) | BIT(21) | BIT(23) | BIT(25) | BIT(32))
#define M_REVERSIBLE (BIT(9) | BIT(10) | BIT(11) | BIT(12) | BIT(13) | BIT(16) | BIT(17) | BIT(19) | BIT(21) | \
                      BIT(22) | BIT(23) | BIT(25) | BIT(26) | BIT(31))
#define SUBSET(a, b) (((a) & ~(b)) == 0)

static const int ORPHANS[13] = {0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33};
static const int R5[9] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625};
static int KNIT[6][9];          /* shapes.KNITTED_STRAIGHTS, same order */

/* ---- tables given by Python ---- */

static int RANK_OF[NF];                 /* fan -> row in FAN_TABLE */
static int VALUE[MAX_RANKS];            /* row -> points */
static int N_RANKS;
static const uint8_t *BITS;             /* suit_table.BITS: complete suit keys */
static PyObject *BITS_OBJ, *MELD_TYPE, *MAKE_HIT;
static PyObject *HITS[MAX_RANKS][16];   /* FanHit per (row, count), made by MAKE_HIT on first use */
static char MARK[3][8];                 /* the notation's marks of a meld claimed from left, across, right */
static PyObject *S_KIND, *S_TILE, *S_CONCEALED, *S_SOURCE, *S_CLAIMED, *S_ADDED;
static int READY;

typedef struct {
    int used;
    uint8_t active[NF];
    int ex_start[MAX_RANKS], ex_len[MAX_RANKS];
    int16_t ex_rank[MAX_EXCL];
    int8_t ex_n[MAX_EXCL];              /* 0: the whole fan, else that many occurrences */
    int waits_by_shape, require_apart, knitted_all_chows, knitted_tile_hog, fifth_copy_waits, deduct_implied;
    int concealed_kongs_add;            /* 暗杠加计: each concealed kong scores 暗杠 beside the kong-count fan */
    int kong_parts;                     /* 核分实例 (6): two concealed kongs beside a third concealed pung are
                                           暗刻 + 双明杠 */
    int pungs_not_pairs;                /* bits of the fans 七对 does not score (profiles.PUNG_FANS order): 1 绿一色,
                                           2 清幺九, 4 字一色, 8 混幺九 */
} Profile;

static Profile PROFS[MAX_PROFILES];

/* ---- one hand, one reading, the fans found ---- */

typedef struct {
    int8_t standing[34], wc[34], counts[34];
    int win, n_melds, n_kongs, kc, n_claimed, n_cp_melds, in_melds;
    int mkind[4], mtile[4];             /* the melds' sets, in order */
    int mkong[4], msource[4], madded[4];  /* for the melds' notation: kong, source (-1: concealed), added */
    int mchow[4], n_mchow, mpung[4], n_mpung;
    int self_drawn, apart, seat, prev, fl;
    uint64_t kinds;                     /* tile kinds present (every tile) */
    int n_suits, n_four, nine_gates;
    int unique_wait;                    /* -1: not computed yet */
} Hand;

typedef struct {
    int8_t form, nsets, pair, knit;
    int8_t kind[4], tile[4];
} Reading;

typedef struct {
    int8_t pair, n;
    int8_t kind[4], tile[4];
} Split;

typedef struct {
    int cnt[MAX_RANKS];
    uint64_t mask[2];
} Found;

static inline void add(Found *f, const Profile *P, int fan, int n)
{
    if (n > 0 && P->active[fan]) {
        int r = RANK_OF[fan];
        f->cnt[r] = n;
        f->mask[r >> 6] |= 1ULL << (r & 63);
    }
}

static inline int has(const Found *f, int fan)
{
    int r = RANK_OF[fan];
    return (f->mask[r >> 6] >> (r & 63)) & 1;
}

static inline int count_of(const Found *f, int fan) { return has(f, fan) ? f->cnt[RANK_OF[fan]] : 0; }

static inline void drop(Found *f, int r) { f->mask[r >> 6] &= ~(1ULL << (r & 63)); }

/* ---- the divider ---- */

static inline int lowest_bit(uint64_t m)       /* m != 0 */
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(m);
#else
    int n = 0;
    while (!(m & 1)) {
        m >>= 1;
        n++;
    }
    return n;
#endif
}

static inline int complete_key(int key) { return (BITS[key >> 3] >> (key & 7)) & 1; }

/* All ways to split the 9 counts ``c`` (lower ranks than ``i`` empty) into sets, as suit_table._sets_of:
   a pung before a chow at the lowest tile. */
static void sets_of(int8_t *c, int i, int base, Split *acc, Split *out, int *n_out)
{
    while (i < 9 && !c[i])
        i++;
    if (i == 9) {
        if (*n_out < MAX_SPLITS)
            out[*n_out] = *acc;
        (*n_out)++;
        return;
    }
    if (acc->n >= 4)
        return;
    if (c[i] >= 3) {
        c[i] -= 3;
        acc->kind[acc->n] = PUNG;
        acc->tile[acc->n] = (int8_t)(base + i);
        acc->n++;
        sets_of(c, i, base, acc, out, n_out);
        acc->n--;
        c[i] += 3;
    }
    if (i <= 6 && c[i + 1] && c[i + 2]) {
        c[i]--, c[i + 1]--, c[i + 2]--;
        acc->kind[acc->n] = CHOW;
        acc->tile[acc->n] = (int8_t)(base + i);
        acc->n++;
        sets_of(c, i, base, acc, out, n_out);
        acc->n--;
        c[i]++, c[i + 1]++, c[i + 2]++;
    }
}

/* suit_table.splits: a suit's readings (pair rank ascending, then the recursion's order). */
static void suit_splits(const int8_t *counts, int base, Split *out, int *n_out)
{
    int8_t c[9];
    int n = 0;
    Split acc;
    memcpy(c, counts + base, 9);
    for (int r = 0; r < 9; r++)
        n += c[r];
    *n_out = 0;
    acc.n = 0;
    if (n % 3 == 0) {
        acc.pair = -1;
        sets_of(c, 0, base, &acc, out, n_out);
        return;
    }
    for (int p = 0; p < 9; p++) {
        if (c[p] >= 2) {
            c[p] -= 2;
            acc.pair = (int8_t)(base + p);
            sets_of(c, 0, base, &acc, out, n_out);
            c[p] += 2;
        }
    }
}

/* shapes.regular_from_keys: every 4 sets + pair reading of ``counts`` appended to ``out`` in the order of the
   search (pair tile slowest, suit m first); returns -1 if there are too many to hold. */
static int regular_readings(const int8_t *counts, int form, int knit, Reading *out, int *n_out)
{
    Split sp[3][MAX_SPLITS];
    int ns[3], pair_at = -1, hon_pair = -1, n_hon = 0;
    int8_t hon[4];
    for (int s = 0; s < 3; s++) {
        int n = 0;
        for (int r = 0; r < 9; r++)
            n += counts[9 * s + r];
        if (n % 3 == 1)
            return 0;
        if (n % 3 == 2) {
            if (pair_at >= 0)
                return 0;
            pair_at = s;
        }
        if (!n) {
            ns[s] = 1;
            sp[s][0].n = 0;
            sp[s][0].pair = -1;
            continue;
        }
        suit_splits(counts, 9 * s, sp[s], &ns[s]);
        if (!ns[s])
            return 0;
        if (ns[s] > MAX_SPLITS)
            return -1;
    }
    for (int t = 27; t < 34; t++) {
        int c = counts[t];
        if (c == 3)
            hon[n_hon++] = (int8_t)t;
        else if (c == 2) {
            if (pair_at >= 0)
                return 0;
            pair_at = 3;
            hon_pair = t;
        } else if (c)
            return 0;
    }
    if (pair_at < 0)
        return 0;
    int g = 0;
    while (g < (pair_at < 3 ? ns[pair_at] : 1)) {
        int lo[3] = {0, 0, 0}, hi[3] = {ns[0], ns[1], ns[2]};
        if (pair_at < 3) {              /* the splits of the pair's suit with the same pair tile */
            int e = g + 1;
            while (e < ns[pair_at] && sp[pair_at][e].pair == sp[pair_at][g].pair)
                e++;
            lo[pair_at] = g;
            hi[pair_at] = e;
            g = e;
        } else
            g = 1;
        for (int a = lo[0]; a < hi[0]; a++)
            for (int b = lo[1]; b < hi[1]; b++)
                for (int c = lo[2]; c < hi[2]; c++) {
                    const Split *parts[3] = {&sp[0][a], &sp[1][b], &sp[2][c]};
                    Reading *rd;
                    if (*n_out >= MAX_READINGS)
                        return -1;
                    rd = &out[(*n_out)++];
                    rd->form = (int8_t)form;
                    rd->knit = (int8_t)knit;
                    rd->nsets = 0;
                    for (int s = 0; s < 3; s++)
                        for (int k = 0; k < parts[s]->n; k++) {
                            if (rd->nsets >= 4)
                                return -1;
                            rd->kind[rd->nsets] = parts[s]->kind[k];
                            rd->tile[rd->nsets++] = parts[s]->tile[k];
                        }
                    for (int k = 0; k < n_hon; k++) {
                        if (rd->nsets >= 4)
                            return -1;
                        rd->kind[rd->nsets] = PUNG;
                        rd->tile[rd->nsets++] = hon[k];
                    }
                    rd->pair = (int8_t)(pair_at == 3 ? hon_pair : parts[pair_at]->pair);
                }
    }
    return 0;
}

static void special(Reading *out, int *n_out, int form, int knit)
{
    Reading *rd = &out[(*n_out)++];
    rd->form = (int8_t)form;
    rd->nsets = 0;
    rd->pair = -1;
    rd->knit = (int8_t)knit;
}

/* shapes.candidates / fast._readings: every reading, in the divider's order; -1 if too many to hold. */
static int readings(const Hand *h, Reading *out, int *n_out)
{
    const int8_t *wc = h->wc;
    *n_out = 0;
    if (regular_readings(wc, REGULAR, -1, out, n_out) < 0)
        return -1;
    if (!h->n_melds) {
        int ok = 1, mx = 0;
        for (int t = 0; t < 34; t++) {
            if (wc[t] != 0 && wc[t] != 2 && wc[t] != 4)
                ok = 0;
            if (wc[t] > mx)
                mx = wc[t];
        }
        if (ok)
            special(out, n_out, SEVEN_PAIRS, -1);
        int n_orph = 0;
        ok = 1;
        for (int k = 0; k < 13; k++) {
            ok &= wc[ORPHANS[k]] >= 1;
            n_orph += wc[ORPHANS[k]];
        }
        if (ok && n_orph == 14)
            special(out, n_out, THIRTEEN_ORPHANS, -1);
        if (mx <= 1) {
            uint64_t suited = 0;
            int n_suited = 0;
            for (int t = 0; t < 27; t++)
                if (wc[t]) {
                    suited |= BIT(t);
                    n_suited++;
                }
            if (n_suited >= 7 && n_suited <= 9)
                for (int k = 0; k < 6; k++) {
                    uint64_t km = 0;
                    for (int j = 0; j < 9; j++)
                        km |= BIT(KNIT[k][j]);
                    if (SUBSET(suited, km)) {
                        special(out, n_out, HONORS_KNITTED, k);
                        break;
                    }
                }
        }
    }
    if (h->n_melds <= 1)
        for (int k = 0; k < 6; k++) {
            int8_t rest[34];
            int ok = 1;
            memcpy(rest, wc, 34);
            for (int j = 0; j < 9; j++) {
                if (!rest[KNIT[k][j]])
                    ok = 0;
                rest[KNIT[k][j]]--;
            }
            if (ok && regular_readings(rest, KNITTED_STRAIGHT, k, out, n_out) < 0)
                return -1;
        }
    return 0;
}

/* ---- waits (shapes.regular_waits, seven_pairs_waits) ---- */

/* The 9 counts (lower ranks than ``i`` empty) split into sets: a plain search, for counts the suit table does not
   hold (a fifth copy). */
static int split_sets(int8_t *c, int i)
{
    while (i < 9 && !c[i])
        i++;
    if (i == 9)
        return 1;
    if (c[i] >= 3) {
        c[i] -= 3;
        int ok = split_sets(c, i);
        c[i] += 3;
        if (ok)
            return 1;
    }
    if (i <= 6 && c[i + 1] && c[i + 2]) {
        c[i]--, c[i + 1]--, c[i + 2]--;
        int ok = split_sets(c, i);
        c[i]++, c[i + 1]++, c[i + 2]++;
        return ok;
    }
    return 0;
}

/* One suit of ``counts`` splits into sets, and one pair if ``with_pair`` (suit_table.complete). */
static int suit_ok(const int8_t *counts, int base, int with_pair)
{
    int8_t c[9];
    int key = 0, big = 0;
    memcpy(c, counts + base, 9);
    for (int r = 0; r < 9; r++) {
        if (c[r] > 4)
            big = 1;
        key += c[r] * R5[r];
    }
    if (!big)
        return complete_key(key);
    if (!with_pair)
        return split_sets(c, 0);
    for (int p = 0; p < 9; p++)
        if (c[p] >= 2) {
            c[p] -= 2;
            int ok = split_sets(c, 0);
            c[p] += 2;
            if (ok)
                return 1;
        }
    return 0;
}

/* The 34 counts split into sets and one pair (any number of sets), copies above 4 allowed. */
static int complete(const int8_t *c)
{
    int n_pairs = 0;
    for (int s = 0; s < 3; s++) {
        int n = 0;
        for (int r = 0; r < 9; r++)
            n += c[9 * s + r];
        if (n % 3 == 1)
            return 0;
        if (n % 3 == 2)
            n_pairs++;
        if (n && !suit_ok(c, 9 * s, n % 3 == 2))
            return 0;
    }
    for (int t = 27; t < 34; t++) {
        int v = c[t];
        if (v == 2 || v == 5)
            n_pairs++;
        else if (v != 0 && v != 3)
            return 0;
    }
    return n_pairs == 1;
}

/* Honour counts that are all sets and at most one pair (no 1 or 4 of a kind). */
static int honours_ok(const int8_t *h)
{
    int n_pairs = 0;
    for (int k = 0; k < 7; k++) {
        if (h[k] == 1 || h[k] == 4)
            return 0;
        n_pairs += h[k] == 2;
    }
    return n_pairs <= 1;
}

/* shapes.waits_from_keys: a tile is a wait if its group (a suit or the honours), with it, splits into sets (and
   the pair, if no other group holds it) while every other group already does. Copies above 4 never occur. */
static uint64_t waits_by_keys(const int8_t *c)
{
    int ok[4] = {1, 1, 1, 1}, pair[4] = {0, 0, 0, 0}, size[4] = {0, 0, 0, 0}, key[3] = {0, 0, 0};
    int bad = 0, n_pairs = 0;
    uint64_t out = 0;
    for (int g = 0; g < 3; g++) {
        for (int r = 0; r < 9; r++) {
            key[g] += c[9 * g + r] * R5[r];
            size[g] += c[9 * g + r];
        }
        if (key[g]) {
            pair[g] = size[g] % 3 == 2;
            ok[g] = size[g] % 3 != 1 && complete_key(key[g]);
        }
    }
    for (int t = 27; t < 34; t++)
        size[3] += c[t];
    if (size[3]) {
        pair[3] = size[3] % 3 == 2;
        ok[3] = size[3] % 3 != 1 && honours_ok(c + 27);
    }
    for (int g = 0; g < 4; g++) {
        bad += !ok[g];
        n_pairs += pair[g] && ok[g];
    }
    if (bad > 1)
        return 0;
    for (int g = 0; g < 4; g++) {
        if (bad && ok[g])
            continue;
        int others = n_pairs - (pair[g] && ok[g]);
        if (others > 1 || (size[g] + 1) % 3 != (others == 0 ? 2 : 0))
            continue;
        if (g < 3) {
            for (int r = 0; r < 9; r++)
                if (c[9 * g + r] < 4 && complete_key(key[g] + R5[r]))
                    out |= BIT(9 * g + r);
        } else {
            int8_t h[7];
            memcpy(h, c + 27, 7);
            for (int k = 0; k < 7; k++) {
                if (h[k] != 1 && h[k] != 2)
                    continue;
                h[k]++;
                if (honours_ok(h))
                    out |= BIT(27 + k);
                h[k]--;
            }
        }
    }
    return out;
}

/* The tiles completing ``c`` (3n+1 tiles) into sets + a pair, as a bit mask (shapes.regular_waits); a tile
   whose four copies are standing is a wait only with ``fifth`` (then by a plain search, as the reference). */
static uint64_t regular_waits(const int8_t *c, int fifth)
{
    int8_t w[34];
    uint64_t out = 0;
    int four = 0;
    for (int t = 0; t < 34; t++)
        four |= c[t] == 4;
    if (!fifth || !four)
        return waits_by_keys(c);
    memcpy(w, c, 34);
    for (int t = 0; t < 34; t++) {
        if (t >= 27 && !w[t])
            continue;                   /* a lone honour completes nothing */
        if (t < 27) {                   /* a suited tile must touch a held tile within two ranks */
            int base = t - t % 9, near = 0;
            for (int x = t - 2; x <= t + 2; x++)
                if (x >= base && x < base + 9 && w[x])
                    near = 1;
            if (!near)
                continue;
        }
        w[t]++;
        if (complete(w))
            out |= BIT(t);
        w[t]--;
    }
    return out;
}

static int popcount64(uint64_t x)
{
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
}

/* fans_waits._unique_wait, once per hand. */
static int unique_wait(Hand *h, const Profile *P)
{
    if (h->unique_wait < 0) {
        uint64_t w = regular_waits(h->standing, P->fifth_copy_waits);
        int ok = popcount64(w) == 1;
        if (ok && !h->n_melds) {
            int single = -1, n_single = 0;
            for (int t = 0; t < 34; t++)
                if (h->standing[t] & 1) {
                    single = t;
                    n_single++;
                }
            if (n_single == 1 && h->standing[single] < 4)
                w |= BIT(single);
            ok = popcount64(w) == 1;
        }
        h->unique_wait = ok;
    }
    return h->unique_wait;
}

/* fans_waits._place */
static int place(const Reading *r, int win, int by_shape)
{
    int edge = 0, closed = 0;
    for (int k = 0; k < r->nsets; k++) {
        int t = r->tile[k];
        if (r->kind[k] != CHOW || !(t <= win && win <= t + 2))
            continue;
        if (win == t + 1)
            closed = 1;
        else if (!by_shape)
            edge = 1;
        else if ((win == t + 2 && t % 9 == 0) || (win == t && t % 9 == 6))
            edge = 1;
    }
    if (edge)
        return W_EDGE;
    if (closed)
        return W_CLOSED;
    if (r->pair == win)
        return W_SINGLE;
    return W_NONE;
}

/* fans_waits.wait_kind: 边张 / 坎张 / 单钓将 by the winning tile's place (competition) or only for a hand waiting
   on one tile (default). */
static int wait_kind(Hand *h, const Profile *P, const Reading *r)
{
    int win = h->win;
    if ((h->fl & FL_HEAVENLY) || !h->apart)
        return W_NONE;                  /* 天和 has no wait; a tile not set apart cannot be checked (3.4.28) */
    if (P->waits_by_shape) {
        if (r->form == REGULAR && ((h->n_claimed == 4 && !h->self_drawn) || h->n_kongs == 4))
            return W_NONE;
        if (r->form != REGULAR && r->form != KNITTED_STRAIGHT)
            return W_NONE;
        int k = place(r, win, 1);
        if (k == W_NONE && r->form == KNITTED_STRAIGHT && win < 27 && win % 9 >= 3 && win % 9 <= 5) {
            for (int j = 0; j < 9; j++)
                if (KNIT[r->knit][j] == win)
                    k = W_CLOSED;
        }
        return k;
    }
    if (r->form == REGULAR) {
        if ((h->n_claimed == 4 && !h->self_drawn) || h->n_kongs == 4)
            return W_NONE;
        if (!unique_wait(h, P))
            return W_NONE;
        return place(r, win, 0);
    }
    if (r->form == KNITTED_STRAIGHT) {
        if (!h->n_melds) {
            int8_t rest[34];
            memset(rest, 0, 34);
            for (int k = 0; k < r->nsets; k++) {
                int t = r->tile[k];
                if (r->kind[k] == CHOW)
                    rest[t]++, rest[t + 1]++, rest[t + 2]++;
                else
                    rest[t] += 3;
            }
            rest[r->pair] += 2;
            if (!rest[win])
                return W_NONE;          /* the winning tile completed the knitted straight itself */
            rest[win]--;
            if (popcount64(regular_waits(rest, P->fifth_copy_waits)) != 1)
                return W_NONE;
            return place(r, win, 0);
        }
        return h->standing[win] >= 1 ? W_SINGLE : W_NONE;
    }
    return W_NONE;
}

/* ---- chow and pung patterns (fans_chows.chow_combo, fans_pungs.pung_combo) ---- */

enum { PD, MD, SS, TT, N_PAIR_FANS };   /* fans_chows._PAIR_FANS, in order */
static const int PAIR_FAN[N_PAIR_FANS] = {F_pure_double_chow, F_mixed_double_chow, F_short_straight,
                                          F_two_terminal_chows};

static int two_chows(int a, int b)
{
    if (a / 9 != b / 9)
        return a % 9 == b % 9 ? MD : -1;
    if (a - b == 3 || b - a == 3)
        return SS;
    if ((a % 9 == 0 && b % 9 == 6) || (a % 9 == 6 && b % 9 == 0))
        return TT;
    if (a == b)
        return PD;
    return -1;
}

static int three_chows(int a, int b, int c)
{
    int sa = a / 9, sb = b / 9, sc = c / 9, ra = a % 9, rb = b % 9, rc = c % 9;
    if (sa != sb && sb != sc && sa != sc) {
        int lo = ra, mid = rb, hi = rc, x;
        if (lo > mid) x = lo, lo = mid, mid = x;
        if (mid > hi) x = mid, mid = hi, hi = x;
        if (lo > mid) x = lo, lo = mid, mid = x;
        if (mid - lo == 1 && hi - mid == 1)
            return F_mixed_shifted_chows;
        if (ra == rb && rb == rc)
            return F_mixed_triple_chow;
        if (lo == 0 && mid == 3 && hi == 6)
            return F_mixed_straight;
    } else if (sa == sb && sb == sc) {
        if (ra == 0 && rb == 3 && rc == 6)
            return F_pure_straight;
        if (b - a == c - b && (b - a == 1 || b - a == 2))
            return F_pure_shifted_chows;
        if (a == b && b == c)
            return F_pure_triple_chow;
    }
    return -1;
}

static int three_value(int fan)          /* a fan's points, from FAN_TABLE (init) */
{
    return VALUE[RANK_OF[fan]];
}

static void chow_combo(const int *ch, int n, int pair, Found *f, const Profile *P)
{
    static const int IDX3[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    static const int IDX2[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    if (n == 4) {
        int all_end = 1;
        for (int i = 0; i < 4; i++)
            if (ch[i] % 9 != 0 && ch[i] % 9 != 6)
                all_end = 0;
        if (pair >= 0 && pair < 27 && pair % 9 == 4 && all_end) {
            int ps = pair / 9, same = 1, n0 = 0, in_ps = 0, got = 0, want = 0;
            for (int i = 0; i < 4; i++) {
                int s = ch[i] / 9;
                same &= s == ps;
                n0 += ch[i] % 9 == 0;
                in_ps |= s == ps;
                got |= 1 << (2 * s + (ch[i] % 9 == 6));
            }
            if (same && n0 == 2) {
                add(f, P, F_pure_terminal_chows, 1);
                return;
            }
            if (!in_ps) {
                for (int s = 0; s < 3; s++)
                    if (s != ps)
                        want |= 3 << (2 * s);
                if (got == want) {
                    add(f, P, F_three_suited_terminal_chows, 1);
                    return;
                }
            }
        }
        int a = ch[0], b = ch[1], c = ch[2], d = ch[3];
        if (a / 9 == d / 9) {
            if (b - a == c - b && c - b == d - c && (b - a == 1 || b - a == 2)) {
                add(f, P, F_four_pure_shifted_chows, 1);
                return;
            }
            if (a == d) {
                add(f, P, F_quadruple_chow, 1);
                return;
            }
        }
    }
    if (n >= 3) {
        int best = -1, best_three = -1, best_extra = -1;
        for (int k = 0; k < (n == 4 ? 4 : 1); k++) {
            const int *ix = IDX3[k];
            int three = three_chows(ch[ix[0]], ch[ix[1]], ch[ix[2]]);
            if (three < 0)
                continue;
            int extra = -1;
            if (n == 4) {
                int rest = ch[6 - ix[0] - ix[1] - ix[2]];
                int seen[N_PAIR_FANS] = {0, 0, 0, 0};
                for (int j = 0; j < 3; j++) {
                    int e = two_chows(ch[ix[j]], rest);
                    if (e >= 0)
                        seen[e] = 1;
                }
                for (int e = 0; e < N_PAIR_FANS; e++)
                    if (seen[e]) {
                        extra = e;
                        break;
                    }
            }
            int score = three_value(three) + (extra >= 0 ? three_value(extra) : 0);
            if (best < 0 || score > best) {
                best = score;
                best_three = three;
                best_extra = extra;
            }
        }
        if (best >= 0) {
            add(f, P, best_three, 1);
            if (best_extra >= 0)
                add(f, P, PAIR_FAN[best_extra], 1);
            return;
        }
    }
    if (n < 2)
        return;
    int found[6], n_pairs = n == 2 ? 1 : n == 3 ? 3 : 6, max_cnt = n - 1;
    /* the pairs of combinations(range(n), 2): for n = 3 the first, second and fourth of IDX2 */
    static const int PAIRS3[3] = {0, 1, 3};
    for (int k = 0; k < n_pairs; k++) {
        const int *ix = IDX2[n == 3 ? PAIRS3[k] : k];
        found[k] = two_chows(ch[ix[0]], ch[ix[1]]);
    }
    if (n == 4)
        for (int i = 0; i < 4; i++) {
            int none = 1;
            for (int k = 0; k < 6; k++)
                if ((IDX2[k][0] == i || IDX2[k][1] == i) && found[k] >= 0)
                    none = 0;
            if (none)
                max_cnt--;
        }
    if (n == 2) {
        if (found[0] >= 0)
            add(f, P, PAIR_FAN[found[0]], 1);
        return;
    }
    if (max_cnt <= 0)
        return;
    int table[N_PAIR_FANS] = {0, 0, 0, 0}, cnt = 0;
    for (int k = 0; k < n_pairs; k++)
        if (found[k] >= 0) {
            table[found[k]]++;
            cnt++;
        }
    for (int limit = 1; limit >= 0; limit--)
        for (int e = N_PAIR_FANS - 1; e >= 0; e--)
            while (table[e] > limit && cnt > max_cnt) {
                table[e]--;
                cnt--;
            }
    for (int e = 0; e < N_PAIR_FANS; e++)
        add(f, P, PAIR_FAN[e], table[e]);
}

static int three_pungs(int a, int b, int c)
{
    if (a < 27 && b < 27 && c < 27) {
        int sa = a / 9, sb = b / 9, sc = c / 9;
        int lo = a % 9, mid = b % 9, hi = c % 9, x;
        if (lo > mid) x = lo, lo = mid, mid = x;
        if (mid > hi) x = mid, mid = hi, hi = x;
        if (lo > mid) x = lo, lo = mid, mid = x;
        if (sa != sb && sb != sc && sa != sc) {
            if (mid - lo == 1 && hi - mid == 1)
                return F_mixed_shifted_pungs;
            if (lo == hi)
                return F_triple_pung;
        } else if (sa == sb && sb == sc && b - a == 1 && c - b == 1)
            return F_pure_shifted_pungs;
        return -1;
    }
    if (a >= 27 && a <= 30 && b >= 27 && b <= 30 && c >= 27 && c <= 30)
        return F_big_three_winds;
    if (a == 31 && b == 32 && c == 33)
        return F_big_three_dragons;
    return -1;
}

static int two_pungs(int a, int b)
{
    if (a < 27 && b < 27)
        return a % 9 == b % 9 ? F_double_pung : -1;
    if (a >= 31 && b >= 31)
        return F_two_dragons_pungs;
    return -1;
}

static void pung_combo(const int *pg, int n, Found *f, const Profile *P)
{
    static const int IDX3[4][3] = {{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}};
    if (n == 4) {
        int a = pg[0], b = pg[1], c = pg[2], d = pg[3];
        if (a < 27 && a / 9 == d / 9 && b == a + 1 && c == b + 1 && d == c + 1) {
            add(f, P, F_four_pure_shifted_pungs, 1);
            return;
        }
        if (a == 27 && b == 28 && c == 29 && d == 30) {
            add(f, P, F_big_four_winds, 1);
            return;
        }
    }
    if (n >= 3) {
        int best = -1, best_three = -1, best_extra = -1;
        for (int k = 0; k < (n == 4 ? 4 : 1); k++) {
            const int *ix = IDX3[k];
            int three = three_pungs(pg[ix[0]], pg[ix[1]], pg[ix[2]]);
            if (three < 0)
                continue;
            int extra = -1;
            if (n == 4) {
                int free_ = pg[6 - ix[0] - ix[1] - ix[2]];
                for (int j = 0; j < 3; j++) {
                    int e = two_pungs(pg[ix[j]], free_);
                    if (e >= 0) {
                        extra = e;
                        break;
                    }
                }
            }
            if (best < 0 || three_value(three) > best) {
                best = three_value(three);
                best_three = three;
                best_extra = extra;
            }
        }
        if (best >= 0) {
            add(f, P, best_three, 1);
            if (best_extra >= 0)
                add(f, P, best_extra, 1);
            return;
        }
    }
    int n_double = 0, n_dragons = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            int e = two_pungs(pg[i], pg[j]);
            if (e == F_double_pung)
                n_double++;
            else if (e == F_two_dragons_pungs)
                n_dragons++;
        }
    add(f, P, F_double_pung, n_double);
    add(f, P, F_two_dragons_pungs, n_dragons);
}

/* ---- one reading: its fans, the 不计 step, its points ---- */

static void sort_small(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int x = a[i], j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

static void tiles_fans(const Hand *h, const Profile *P, int form, Found *f)
{
    uint64_t kinds = h->kinds;
    int trait = form == REGULAR || form == SEVEN_PAIRS;
    int honour = (kinds & M_HONORS) != 0;
    int off = form == SEVEN_PAIRS ? P->pungs_not_pairs : 0;    /* fans_limits._form_of_sets */
    if (trait) {
        if (SUBSET(kinds, M_GREEN) && !(off & 1))
            add(f, P, F_all_green, 1);
        if (SUBSET(kinds, M_TERMINALS) && !(off & 2))
            add(f, P, F_all_terminals, 1);
        if (SUBSET(kinds, M_HONORS) && !(off & 4))
            add(f, P, F_all_honors, 1);
        if (SUBSET(kinds, M_TERMINALS | M_HONORS) && !SUBSET(kinds, M_TERMINALS) && !SUBSET(kinds, M_HONORS) &&
            !(off & 8))
            add(f, P, F_all_terminals_and_honors, 1);
        if (!honour) {                  /* fans_limits._range_kind */
            int ranks = 0;
            for (int t = 0; t < 27; t++)
                if (kinds & BIT(t))
                    ranks |= 1 << (t % 9 + 1);
#define RS(lo, hi) (((1 << ((hi) + 1)) - 1) & ~((1 << (lo)) - 1))
            if (SUBSET(ranks, RS(1, 4)))
                add(f, P, ranks & (1 << 4) ? F_lower_four : F_lower_tiles, 1);
            else if (SUBSET(ranks, RS(6, 9)))
                add(f, P, ranks & (1 << 6) ? F_upper_four : F_upper_tiles, 1);
            else if (SUBSET(ranks, RS(4, 6)))
                add(f, P, F_middle_tiles, 1);
#undef RS
        }
        if (SUBSET(kinds, M_REVERSIBLE))
            add(f, P, F_reversible_tiles, 1);
        if (!(kinds & (M_TERMINALS | M_HONORS)))
            add(f, P, F_all_simples, 1);
    }
    if (h->n_suits == 1 && !honour)
        add(f, P, F_full_flush, 1);
    if (h->n_suits == 1 && honour)
        add(f, P, F_half_flush, 1);
    if (h->n_suits == 3 && (kinds & M_WINDS) && (kinds & M_DRAGONS))
        add(f, P, F_all_types, 1);
    if (!(form == KNITTED_STRAIGHT && !P->knitted_tile_hog))
        add(f, P, F_tile_hog, h->n_four - h->n_kongs);
    if (h->n_suits == 2)
        add(f, P, F_one_voided_suit, 1);
    if (!honour)
        add(f, P, F_no_honors, 1);
    if (form == SEVEN_PAIRS) {
        int lo = -1, hi = -1;
        for (int t = 0; t < 34; t++)
            if (kinds & BIT(t)) {
                if (lo < 0)
                    lo = t;
                hi = t;
            }
        int shifted = popcount64(kinds) == 7 && lo < 27 && hi - lo == 6 && lo / 9 == hi / 9;
        add(f, P, shifted ? F_seven_shifted_pairs : F_seven_pairs, 1);
        if (SUBSET(kinds, M_GREEN))
            add(f, P, F_green_seven_pairs, 1);
        if (kinds == M_HONORS)
            add(f, P, F_honors_seven_pairs_full, 1);
        if (SUBSET(kinds, M_HONORS) && kinds != M_HONORS)
            add(f, P, F_honors_seven_pairs, 1);
        if (SUBSET(kinds, M_TERMINALS))
            add(f, P, F_terminals_seven_pairs, 1);
    }
    if (form == THIRTEEN_ORPHANS)
        add(f, P, F_thirteen_orphans, 1);
    if (form == HONORS_KNITTED) {
        add(f, P, SUBSET(M_HONORS, kinds) ? F_greater_honors_knitted : F_lesser_honors_knitted, 1);
        if (popcount64(kinds & M_SUITED) == 9)
            add(f, P, F_knitted_straight, 1);
    }
    if (form == KNITTED_STRAIGHT)
        add(f, P, F_knitted_straight, 1);
}

/* Every set and the pair contain a 5 (all_five) / a terminal or an honour (outside_hand). */
static int every_set(const Hand *h, const Reading *r, int outside)
{
    int n = 0, kind[9], tile[9];
    for (int k = 0; k < h->n_melds; k++)
        kind[n] = h->mkind[k], tile[n++] = h->mtile[k];
    for (int k = 0; k < r->nsets; k++)
        kind[n] = r->kind[k], tile[n++] = r->tile[k];
    if (r->pair >= 0)
        kind[n] = 2, tile[n++] = r->pair;
    for (int k = 0; k < n; k++) {
        int t = tile[k], rk = t % 9;
        if (t >= 27) {
            if (outside)
                continue;
            return 0;
        }
        if (outside) {
            if (kind[k] == CHOW ? (rk != 0 && rk != 6) : (rk != 0 && rk != 8))
                return 0;
        } else if (kind[k] == CHOW ? (rk < 2 || rk > 4) : rk != 4)
            return 0;
    }
    return 1;
}

static int reading_points(Hand *h, const Profile *P, const Reading *r, Found *f)
{
    int chows[4], pungs[4], nch = 0, npg = 0, n_cp = h->n_cp_melds, win = h->win, form = r->form;
    int pair = r->pair, sd = h->self_drawn, fl = h->fl;
    memset(f->mask, 0, sizeof f->mask);

    /* sets of the reading with the declared ones (context._structure) */
    for (int k = 0; k < h->n_mchow; k++)
        chows[nch++] = h->mchow[k];
    for (int k = 0; k < h->n_mpung; k++)
        pungs[npg++] = h->mpung[k];
    int win_in_chow = 0;
    for (int k = 0; k < r->nsets; k++)
        if (r->kind[k] == CHOW) {
            chows[nch++] = r->tile[k];
            if (r->tile[k] <= win && win <= r->tile[k] + 2)
                win_in_chow = 1;
        }
    for (int k = 0; k < r->nsets; k++)
        if (r->kind[k] == PUNG) {
            pungs[npg++] = r->tile[k];
            if (form != REGULAR || sd || r->tile[k] != win || win_in_chow)
                n_cp++;
        }
    sort_small(chows, nch);
    sort_small(pungs, npg);
    int n_kongs = h->n_kongs, kc = h->kc, ke = n_kongs - kc;
    int n_wind_pungs = 0, n_dragon_pungs = 0;
    for (int k = 0; k < npg; k++) {
        n_wind_pungs += pungs[k] >= 27 && pungs[k] <= 30;
        n_dragon_pungs += pungs[k] >= 31;
    }

    /* tiles */
    tiles_fans(h, P, form, f);

    /* situation */
    add(f, P, F_last_tile_draw, (fl & FL_LAST_TILE) && sd);
    add(f, P, F_last_tile_claim, (fl & FL_LAST_TILE) && !sd);
    add(f, P, F_out_with_replacement_tile, (fl & FL_KONG_REPLACEMENT) != 0);
    add(f, P, F_robbing_the_kong, (fl & FL_ROBBING_KONG) != 0);
    add(f, P, F_melded_hand, h->n_claimed == 4 && !sd);
    add(f, P, F_fully_concealed_hand, h->n_claimed == 0 && sd);
    add(f, P, F_last_tile, (fl & FL_LAST_COPY) != 0);
    add(f, P, F_concealed_hand, h->n_claimed == 0 && !sd);
    add(f, P, F_self_drawn, sd);
    add(f, P, F_heavenly_hand, (fl & FL_HEAVENLY) != 0);
    add(f, P, F_earthly_hand, (fl & FL_EARTHLY) != 0);
    add(f, P, F_human_hand, (fl & FL_HUMAN) != 0);

    /* sets */
    if (form == REGULAR && nch)
        chow_combo(chows, nch, pair, f, P);
    if (npg >= 2)
        pung_combo(pungs, npg, f, P);
    add(f, P, F_four_kongs, n_kongs == 4);
    add(f, P, F_little_four_winds, pair >= 27 && pair <= 30 && n_wind_pungs == 3);
    add(f, P, F_little_three_dragons, pair >= 31 && n_dragon_pungs == 2);
    add(f, P, F_four_concealed_pungs, n_cp == 4);
    add(f, P, F_three_kongs, n_kongs == 3);
    add(f, P, F_three_concealed_pungs, n_cp == 3);
    add(f, P, F_all_pungs, form == REGULAR && npg == 4);
    int kong_parts = P->kong_parts && n_kongs == 2 && kc == 2 && n_cp > 2;
    add(f, P, F_two_concealed_kongs, n_kongs == 2 && kc == 2 && !kong_parts);
    add(f, P, F_concealed_kong_and_melded_kong, n_kongs == 2 && kc == 1 && !P->concealed_kongs_add);
    add(f, P, F_two_melded_kongs, (n_kongs == 2 && (ke == 2 || (P->concealed_kongs_add && ke == 1))) || kong_parts);
    add(f, P, F_dragon_pung, n_dragon_pungs);
    add(f, P, F_two_concealed_pungs, n_cp == 2);
    add(f, P, F_concealed_kong, P->concealed_kongs_add ? kc : (n_kongs == 1 && kc == 1));
    add(f, P, F_melded_kong, n_kongs == 1 && ke == 1);
    if (pair >= 0 && pair < 27) {
        if (form == REGULAR)
            add(f, P, F_all_chows, nch == 4);
        else if (form == KNITTED_STRAIGHT && P->knitted_all_chows)
            add(f, P, F_all_chows, nch == 1);
    }
    if (form == REGULAR && npg == 4 && pair >= 0) {
        int even = pair < 27 && pair % 9 % 2 == 1, odd = pair < 27 && pair % 9 % 2 == 0;
        for (int k = 0; k < 4; k++) {
            even &= pungs[k] < 27 && pungs[k] % 9 % 2 == 1;
            odd &= pungs[k] < 27 && pungs[k] % 9 % 2 == 0;
        }
        add(f, P, F_all_even_pungs, even);
        add(f, P, F_all_odd_pungs, odd);
    }
    if (form == REGULAR) {
        add(f, P, F_all_five, every_set(h, r, 0));
        add(f, P, F_outside_hand, every_set(h, r, 1));
        if (pair >= 0 && pair < 27 && pair % 9 == 4 && nch == 4) {
            int s = pair / 9 * 9;
            add(f, P, F_all_knitted_full,
                chows[0] == s && chows[1] == s + 3 && chows[2] == s + 3 && chows[3] == s + 6);
        }
    }

    /* winds */
    int prev_in = 0, seat_in = 0, n_term = 0, n_other_winds = 0;
    for (int k = 0; k < npg; k++) {
        int t = pungs[k];
        prev_in |= t == h->prev;
        seat_in |= t == h->seat;
        if (t < 27 && (t % 9 == 0 || t % 9 == 8))
            n_term++;
        if (t >= 27 && t <= 30 && t != h->seat && t != h->prev)
            n_other_winds++;
    }
    add(f, P, F_prevalent_wind, prev_in);
    add(f, P, F_seat_wind, seat_in);
    add(f, P, F_pung_terminals_honors, n_term + (n_wind_pungs <= 2 ? n_other_winds : 0));

    /* waits */
    if (form == REGULAR && !h->n_melds && !(P->require_apart && !h->apart) && !(fl & FL_HEAVENLY))
        add(f, P, F_nine_gates, h->nine_gates);
    int w = wait_kind(h, P, r);
    add(f, P, F_edge_wait, w == W_EDGE);
    add(f, P, F_closed_wait, w == W_CLOSED);
    add(f, P, F_single_wait, w == W_SINGLE);

    /* 不计: from the highest fan down; a fan not counted when its turn comes cancels nothing */
    for (int word = 0; word < 2; word++)
        for (uint64_t m = f->mask[word]; m; m &= m - 1) {
            int rk = word * 64 + lowest_bit(m);
            if (!((f->mask[word] >> (rk & 63)) & 1))
                continue;
            for (int e = P->ex_start[rk], end = e + P->ex_len[rk]; e < end; e++) {
                int k = P->ex_rank[e];
                if (!((f->mask[k >> 6] >> (k & 63)) & 1))
                    continue;
                if (P->ex_n[e] == 0 || (f->cnt[k] -= P->ex_n[e]) <= 0)
                    drop(f, k);
            }
        }
    if (!f->mask[0] && !f->mask[1]) {
        int rk = RANK_OF[F_chicken_hand];
        f->cnt[rk] = 1;
        f->mask[rk >> 6] |= 1ULL << (rk & 63);
    }
    if (P->deduct_implied && (has(f, F_all_honors) || has(f, F_all_terminals_and_honors))) {
        /* tally._implied: honour pungs scored by a pung fan inside 字一色/混幺九 */
        int n = count_of(f, F_dragon_pung) + 2 * has(f, F_two_dragons_pungs);
        if (has(f, F_big_three_winds))
            n += 3;
        else
            for (int k = 0; k < npg; k++) {
                int t = pungs[k];
                if (t >= 27 && t <= 30 && ((t == h->prev && has(f, F_prevalent_wind))
                                           || (t == h->seat && has(f, F_seat_wind))))
                    n++;
            }
        if (n) {
            int rk = RANK_OF[F_implied_terminal_pung];
            f->cnt[rk] = n;
            f->mask[rk >> 6] |= 1ULL << (rk & 63);
        }
    }
    int pts = 0;
    for (int word = 0; word < 2; word++)
        for (uint64_t m = f->mask[word]; m; m &= m - 1) {
            int rk = word * 64 + lowest_bit(m);
            pts += VALUE[rk] * f->cnt[rk];
        }
    return pts;
}

/* ---- the decomposition text (tally.describe) ---- */

static const char SUIT_LETTER[4] = {'m', 'p', 's', 'z'};

static char *put_group(char *p, int kind, int t)
{
    int r = t % 9 + 1;
    if (p[-1] != '\0')
        *p++ = ' ';
    if (kind == CHOW)
        *p++ = (char)('0' + r), *p++ = (char)('1' + r), *p++ = (char)('2' + r);
    else if (kind == PUNG)
        *p++ = (char)('0' + r), *p++ = (char)('0' + r), *p++ = (char)('0' + r);
    else
        *p++ = (char)('0' + r), *p++ = (char)('0' + r);
    *p++ = SUIT_LETTER[t / 9];
    return p;
}

/* notation.format_tiles: consecutive tiles of a suit share a letter */
static char *put_tiles(char *p, const int *tiles, int n)
{
    int run = -1;
    for (int k = 0; k < n; k++) {
        int su = tiles[k] / 9;
        if (run >= 0 && su != run)
            *p++ = SUIT_LETTER[run];
        *p++ = (char)('1' + tiles[k] % 9);
        run = su;
    }
    if (run >= 0)
        *p++ = SUIT_LETTER[run];
    return p;
}

static PyObject *describe(const Hand *h, const Reading *r)
{
    static const char *LABEL[] = {"", "(\xe4\xb8\x83\xe5\xaf\xb9)",                      /* (七对) */
                                  "(\xe5\x8d\x81\xe4\xb8\x89\xe5\xb9\xba)",              /* (十三幺) */
                                  "(\xe5\x85\xa8\xe4\xb8\x8d\xe9\x9d\xa0)",              /* (全不靠) */
                                  "(\xe7\xbb\x84\xe5\x90\x88\xe9\xbe\x99)"};             /* (组合龙) */
    char buf[256];
    char *p = buf + 1;
    buf[0] = '\0';
    if (r->form == REGULAR || r->form == KNITTED_STRAIGHT) {
        if (r->form == KNITTED_STRAIGHT) {
            p = put_tiles(p, KNIT[r->knit], 9);
            size_t n = strlen(LABEL[KNITTED_STRAIGHT]);
            memcpy(p, LABEL[KNITTED_STRAIGHT], n);
            p += n;
        }
        for (int k = 0; k < r->nsets; k++)
            p = put_group(p, r->kind[k], r->tile[k]);
        p = put_group(p, 2, r->pair);
    } else {
        int tiles[14], n = 0;
        for (int t = 0; t < 34; t++)
            for (int c = 0; c < h->wc[t] && n < 14; c++)
                tiles[n++] = t;
        p = put_tiles(p, tiles, n);
        size_t len = strlen(LABEL[r->form]);
        memcpy(p, LABEL[r->form], len);
        p += len;
    }
    for (int k = 0; k < h->n_melds; k++) {      /* notation.format_meld */
        int t = h->mtile[k], n = h->mkind[k] == CHOW ? 3 : h->mkong[k] ? 4 : 3, tiles[4];
        for (int j = 0; j < n; j++)
            tiles[j] = h->mkind[k] == CHOW ? t + j : t;
        *p++ = ' ', *p++ = '[';
        p = put_tiles(p, tiles, n);
        if (h->msource[k] >= 0) {
            size_t len = strlen(MARK[h->msource[k]]);
            memcpy(p, MARK[h->msource[k]], len);
            p += len;
        }
        if (h->madded[k])
            *p++ = '+';
        *p++ = ']';
    }
    *p++ = ' ', *p++ = '+';                     /* the winning tile */
    *p++ = (char)('1' + h->win % 9);
    *p++ = SUIT_LETTER[h->win / 9];
    return PyUnicode_DecodeUTF8(buf + 1, p - buf - 1, NULL);
}

/* ---- reading the hand's Python objects ---- */

static int tile_of(PyObject *o)
{
    if (!PyLong_CheckExact(o))
        return -1;
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return v >= 0 && v < 34 ? (int)v : -1;
}

static int str_is(PyObject *o, const char *s)
{
    return PyUnicode_CheckExact(o) && PyUnicode_CompareWithASCIIString(o, s) == 0;
}

/* One Meld into ``h`` (fast._read_melds's checks); 0 if Python must judge the hand. */
static int read_meld(Hand *h, PyObject *m)
{
    PyObject *kind = NULL, *tile = NULL, *conc = NULL, *source = NULL, *claimed = NULL, *added = NULL;
    int ok = 0, t, cl = -1, k;
    if ((PyObject *)Py_TYPE(m) != MELD_TYPE)
        return 0;
    if (!(kind = PyObject_GetAttr(m, S_KIND)) || !(tile = PyObject_GetAttr(m, S_TILE))
        || !(conc = PyObject_GetAttr(m, S_CONCEALED)) || !(claimed = PyObject_GetAttr(m, S_CLAIMED)))
        goto done;
    if ((t = tile_of(tile)) < 0)
        goto done;
    if (claimed != Py_None && (cl = tile_of(claimed)) < 0)
        goto done;
    if (str_is(kind, "chow"))
        k = 0;
    else if (str_is(kind, "pung"))
        k = 1;
    else if (str_is(kind, "kong"))
        k = 2;
    else
        goto done;
    if (conc == Py_True) {
        if (k != 2 || (cl >= 0 && cl != t))
            goto done;
        h->msource[h->n_melds] = -1;
    } else if (conc == Py_False) {
        if (!(source = PyObject_GetAttr(m, S_SOURCE)))
            goto done;
        if (str_is(source, "left"))
            h->msource[h->n_melds] = 0;
        else if (str_is(source, "across"))
            h->msource[h->n_melds] = 1;
        else if (str_is(source, "right"))
            h->msource[h->n_melds] = 2;
        else
            goto done;
        h->n_claimed++;
    } else
        goto done;
    int i = h->n_melds;
    if (k == 0) {
        if (t >= 27 || t % 9 > 6 || (cl >= 0 && !(t <= cl && cl <= t + 2)))
            goto done;
        h->counts[t]++, h->counts[t + 1]++, h->counts[t + 2]++;
        h->mchow[h->n_mchow++] = t;
        h->mkind[i] = CHOW;
        h->in_melds += t <= h->win && h->win <= t + 2;
    } else {
        if (cl >= 0 && cl != t)
            goto done;
        if (k == 2) {
            h->counts[t] += 4;
            h->n_kongs++;
            if (conc == Py_True) {
                h->kc++;
                h->n_cp_melds++;
            }
        } else
            h->counts[t] += 3;
        h->mpung[h->n_mpung++] = t;
        h->mkind[i] = PUNG;
        if (t == h->win)
            h->in_melds += k == 2 ? 4 : 3;
    }
    h->mtile[i] = t;
    h->mkong[i] = k == 2;
    if (!(added = PyObject_GetAttr(m, S_ADDED)) || (h->madded[i] = PyObject_IsTrue(added)) < 0)
        goto done;
    h->n_melds++;
    ok = 1;
done:
    if (PyErr_Occurred())
        PyErr_Clear();
    Py_XDECREF(kind);
    Py_XDECREF(tile);
    Py_XDECREF(conc);
    Py_XDECREF(source);
    Py_XDECREF(claimed);
    Py_XDECREF(added);
    return ok;
}

/* The shared FanHit of ``count`` times the fan of row ``rk`` (a new reference). */
static PyObject *get_hit(int rk, int count)
{
    PyObject *hit;
    if (count < 16 && HITS[rk][count]) {
        Py_INCREF(HITS[rk][count]);
        return HITS[rk][count];
    }
    hit = PyObject_CallFunction(MAKE_HIT, "ii", rk, count);
    if (hit && count < 16) {
        Py_INCREF(hit);
        HITS[rk][count] = hit;
    }
    return hit;
}

static PyObject *c_score(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *concealed, *win_obj, *melds;
    Py_buffer masks;
    int sitword, slot;
    Reading rd[MAX_READINGS];           /* on the stack: no state is shared between calls */
    Hand h;
    Found f;
    if (!PyArg_ParseTuple(args, "OOOy*ii", &concealed, &win_obj, &melds, &masks, &sitword, &slot))
        return NULL;
    PyObject *res = NULL;
    if (!READY || slot < 0 || slot >= MAX_PROFILES || !PROFS[slot].used || masks.len != 40) {
        PyErr_SetString(PyExc_ValueError, "_ccore.score: not set up for this profile");
        goto out;
    }
    const Profile *P = &PROFS[slot];
    memset(&h, 0, sizeof h);
    if (!PyTuple_CheckExact(concealed) || !PyTuple_CheckExact(melds) || (h.win = tile_of(win_obj)) < 0)
        goto fallback;
    Py_ssize_t n_conc = PyTuple_GET_SIZE(concealed), n_melds = PyTuple_GET_SIZE(melds);
    if (n_melds > 4 || n_conc + 1 + 3 * n_melds != 14)
        goto fallback;
    for (Py_ssize_t i = 0; i < n_conc; i++) {
        int t = tile_of(PyTuple_GET_ITEM(concealed, i));
        if (t < 0)
            goto fallback;
        h.standing[t]++;
    }
    memcpy(h.wc, h.standing, 34);
    h.wc[h.win]++;
    memcpy(h.counts, h.wc, 34);
    for (Py_ssize_t i = 0; i < n_melds; i++)
        if (!read_meld(&h, PyTuple_GET_ITEM(melds, i)))
            goto fallback;
    for (int t = 0; t < 34; t++) {
        if (h.counts[t] > 4)
            goto fallback;
        if (h.counts[t]) {
            h.kinds |= BIT(t);
            h.n_four += h.counts[t] == 4;
        }
    }
    /* the checked Situation flags for this hand's tile facts (0xFF: not checked yet, Python fills it in) */
    int in_hand = h.standing[h.win] > 0;
    int fidx = ((in_hand * 5 + h.in_melds) * 2 + (h.n_kongs > 0)) * 2 + (h.n_melds > 0);
    h.fl = ((const uint8_t *)masks.buf)[fidx];
    if (h.fl == 0xFF) {
        res = PyLong_FromLong(fidx);
        goto out;
    }
    int n_r;
    if (readings(&h, rd, &n_r) < 0)
        goto fallback;
    if (!n_r) {
        res = Py_False;
        Py_INCREF(res);
        goto out;
    }
    h.self_drawn = sitword & 1;
    h.apart = (sitword >> 1) & 1;
    h.seat = 27 + ((sitword >> 2) & 3);
    h.prev = 27 + ((sitword >> 4) & 3);
    h.unique_wait = -1;
    for (int s = 0; s < 3; s++)
        if (h.kinds & (0x1FFULL << (9 * s)))
            h.n_suits++;
    if (!h.n_melds)
        for (int s = 0; s < 3; s++) {
            static const int8_t NG[9] = {3, 1, 1, 1, 1, 1, 1, 1, 3};
            if (!memcmp(h.standing + 9 * s, NG, 9))
                h.nine_gates = 1;
        }

    int best = 0, best_pts = 0;
    Found best_f;
    for (int i = 0; i < n_r; i++) {
        int pts = reading_points(&h, P, &rd[i], &f);
        if (i == 0 || pts > best_pts) {
            best = i;
            best_pts = pts;
            best_f = f;
        }
    }
    int n_items = 0, j = 0;
    for (int word = 0; word < 2; word++)
        n_items += popcount64(best_f.mask[word]);
    PyObject *fans = PyList_New(n_items);
    if (!fans)
        goto out;
    for (int word = 0; word < 2; word++)
        for (uint64_t m = best_f.mask[word]; m; m &= m - 1) {
            int rk = word * 64 + lowest_bit(m);
            PyObject *hit = get_hit(rk, best_f.cnt[rk]);
            if (!hit) {
                Py_DECREF(fans);
                goto out;
            }
            PyList_SET_ITEM(fans, j++, hit);
        }
    PyObject *desc = describe(&h, &rd[best]);
    if (!desc) {
        Py_DECREF(fans);
        goto out;
    }
    res = Py_BuildValue("(iNNi)", best_pts, fans, desc, fidx);
    goto out;
fallback:
    res = Py_None;
    Py_INCREF(res);
out:
    PyBuffer_Release(&masks);
    return res;
}

/* ---- set-up from Python ---- */

static int fan_index(PyObject *name)
{
    for (int k = 0; k < NF; k++)
        if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, FAN_NAMES[k]) == 0)
            return k;
    return -1;
}

/* init(bits, meld_type, ranks, values, make_hit, marks): suit_table.BITS, the Meld class, each fan's row in
   FAN_TABLE (in the order of FANS), every row's value (FAN_TABLE order), the callable (row, count) -> FanHit and
   the notation's marks of a meld claimed from left, across and right. */
static PyObject *c_init(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *bits, *meld_type, *ranks, *values, *make_hit;
    const char *marks[3];
    if (!PyArg_ParseTuple(args, "SOO!O!O(sss)", &bits, &meld_type, &PyTuple_Type, &ranks, &PyTuple_Type, &values,
                          &make_hit, &marks[0], &marks[1], &marks[2]))
        return NULL;
    for (int k = 0; k < 3; k++) {
        if (strlen(marks[k]) >= sizeof MARK[k]) {
            PyErr_SetString(PyExc_ValueError, "_ccore.init: meld mark too long");
            return NULL;
        }
        strcpy(MARK[k], marks[k]);
    }
    if (PyTuple_GET_SIZE(ranks) != NF || PyTuple_GET_SIZE(values) > MAX_RANKS
        || PyBytes_GET_SIZE(bits) < (1953125 + 7) / 8) {
        PyErr_SetString(PyExc_ValueError, "_ccore.init: tables of the wrong size");
        return NULL;
    }
    N_RANKS = (int)PyTuple_GET_SIZE(values);
    for (int k = 0; k < N_RANKS; k++) {
        VALUE[k] = (int)PyLong_AsLong(PyTuple_GET_ITEM(values, k));
        if (PyErr_Occurred())
            return NULL;
    }
    for (int k = 0; k < NF; k++) {
        long r = PyLong_AsLong(PyTuple_GET_ITEM(ranks, k));
        if (PyErr_Occurred())
            return NULL;
        if (r < 0 || r >= N_RANKS) {
            PyErr_SetString(PyExc_ValueError, "_ccore.init: rank out of range");
            return NULL;
        }
        RANK_OF[k] = (int)r;
    }
    Py_INCREF(bits);
    Py_XSETREF(BITS_OBJ, bits);
    BITS = (const uint8_t *)PyBytes_AS_STRING(bits);
    Py_INCREF(meld_type);
    Py_XSETREF(MELD_TYPE, meld_type);
    Py_INCREF(make_hit);
    Py_XSETREF(MAKE_HIT, make_hit);
    for (int r = 0; r < MAX_RANKS; r++)
        for (int n = 0; n < 16; n++)
            Py_CLEAR(HITS[r][n]);
    for (int k = 0; k < MAX_PROFILES; k++)
        PROFS[k].used = 0;
    READY = 1;
    Py_RETURN_NONE;
}

/* set_profile(slot, active, excludes, switches): the active fans (ids), the 不计 lists as
   ((row, ((row, n), ...)), ...) with n = 0 for the whole fan, and the switches (waits_by_shape, require_apart,
   knitted_all_chows, knitted_tile_hog, fifth_copy_waits, deduct_implied_pungs, concealed_kongs_add,
   kong_parts, and pungs_not_pairs as a bit mask). */
static PyObject *c_set_profile(PyObject *self, PyObject *args)
{
    (void)self;
    int slot;
    PyObject *active, *excl, *sw;
    Profile P;
    if (!PyArg_ParseTuple(args, "iO!O!O!", &slot, &PyTuple_Type, &active, &PyTuple_Type, &excl, &PyTuple_Type, &sw))
        return NULL;
    if (!READY || slot < 0 || slot >= MAX_PROFILES || PyTuple_GET_SIZE(sw) != 9) {
        PyErr_SetString(PyExc_ValueError, "_ccore.set_profile: bad slot or switches");
        return NULL;
    }
    memset(&P, 0, sizeof P);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(active); i++) {
        int k = fan_index(PyTuple_GET_ITEM(active, i));
        if (k < 0) {
            PyErr_Format(PyExc_ValueError, "_ccore.set_profile: unknown fan %R", PyTuple_GET_ITEM(active, i));
            return NULL;
        }
        P.active[k] = 1;
    }
    int n = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(excl); i++) {
        int row;
        PyObject *entries;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(excl, i), "iO!", &row, &PyTuple_Type, &entries))
            return NULL;
        if (row < 0 || row >= N_RANKS || P.ex_len[row]) {
            PyErr_SetString(PyExc_ValueError, "_ccore.set_profile: bad 不计 row");
            return NULL;
        }
        P.ex_start[row] = n;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(entries); j++) {
            int e, cnt;
            if (!PyArg_ParseTuple(PyTuple_GET_ITEM(entries, j), "ii", &e, &cnt))
                return NULL;
            if (e < 0 || e >= N_RANKS || cnt < 0 || cnt > 100 || n >= MAX_EXCL) {
                PyErr_SetString(PyExc_ValueError, "_ccore.set_profile: bad 不计 entry");
                return NULL;
            }
            P.ex_rank[n] = (int16_t)e;
            P.ex_n[n++] = (int8_t)cnt;
        }
        P.ex_len[row] = n - P.ex_start[row];
    }
    int *swp[8] = {&P.waits_by_shape, &P.require_apart, &P.knitted_all_chows, &P.knitted_tile_hog,
                   &P.fifth_copy_waits, &P.deduct_implied, &P.concealed_kongs_add, &P.kong_parts};
    for (int k = 0; k < 8; k++) {
        int v = PyObject_IsTrue(PyTuple_GET_ITEM(sw, k));
        if (v < 0)
            return NULL;
        *swp[k] = v;
    }
    long mask = PyLong_AsLong(PyTuple_GET_ITEM(sw, 8));
    if (mask == -1 && PyErr_Occurred())
        return NULL;
    P.pungs_not_pairs = (int)mask;
    P.used = 1;
    PROFS[slot] = P;
    Py_RETURN_NONE;
}

static PyMethodDef METHODS[] = {
    {"init", c_init, METH_VARARGS,
     "init(bits, meld_type, ranks, values, make_hit, marks): the tables shared by every profile"},
    {"set_profile", c_set_profile, METH_VARARGS,
     "set_profile(slot, active, excludes, switches): one profile's active fans, 不计 lists and switches"},
    {"score", c_score, METH_VARARGS,
     "score(concealed, win, melds, masks, sitword, slot) -> (base, fans, decomposition, facts) | facts | False | None\n"
     "fans: a new list of FanHit in table order; facts alone: masks[facts] is 0xFF, check those flags first;\n"
     "False: no winning reading; None: let Python judge the hand"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef MODULE = {PyModuleDef_HEAD_INIT, "_ccore",
                                    "Compiled core of the MCR fast path (see ccore.py).", -1, METHODS,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__ccore(void)
{
    /* shapes.KNITTED_STRAIGHTS: for each permutation of the suits, 147 / 258 / 369, sorted */
    static const int PERM[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < 6; k++) {
        int n = 0;
        for (int s = 0; s < 3; s++)             /* suit s holds the ranks start, start+3, start+6 */
            for (int j = 0; j < 3; j++)
                if (PERM[k][j] == s)
                    for (int r = j; r < 9; r += 3)
                        KNIT[k][n++] = 9 * s + r;
    }
    PyObject *m = PyModule_Create(&MODULE);
    if (!m)
        return NULL;
    PyObject *names = PyTuple_New(NF);
    if (!names)
        return NULL;
    for (int k = 0; k < NF; k++)
        PyTuple_SET_ITEM(names, k, PyUnicode_FromString(FAN_NAMES[k]));
    if (PyModule_AddObject(m, "FANS", names) < 0 || PyModule_AddIntConstant(m, "MAX_PROFILES", MAX_PROFILES) < 0)
        return NULL;
    S_KIND = PyUnicode_InternFromString("kind");
    S_TILE = PyUnicode_InternFromString("tile");
    S_CONCEALED = PyUnicode_InternFromString("concealed");
    S_SOURCE = PyUnicode_InternFromString("source");
    S_CLAIMED = PyUnicode_InternFromString("claimed");
    S_ADDED = PyUnicode_InternFromString("added");
    if (!S_KIND || !S_TILE || !S_CONCEALED || !S_SOURCE || !S_CLAIMED || !S_ADDED)
        return NULL;
    return m;
}
