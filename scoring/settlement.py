"""Sichuan SBR 2025 settlement of one deal (血战到底), from its events.

Source: shared/rules/sichuan-sbr-2025.txt 第九条二 (blood battle), 第十条 (settlement), 第十二条十 (主动花猪),
and the 2V2 supplement 第一条七 (IMP table).

A deal is four seats 0..3 and its events in order:

* ``Kong(seat, kind, discarder=None, drawn=True)``: 刮风下雨. kind "melded" (点杠: the discarder pays 2),
  "added" (加杠 with the just-drawn tile: each player still in pays 1; with another hand tile: nothing),
  "concealed" (暗杠: each player still in pays 2). A robbed added kong (抢杠) never happened: do not record it.
* ``Win(winners, fans, discarder=None, kong_discard=False)``: one or several winners (一炮多响) on one
  discard, or one self-drawn winner (discarder None). Discard win: the discarder pays each winner base;
  self-draw: each player still in pays base + 1. ``kong_discard`` (杠上炮): the discarder's last kong is
  refunded to those who paid it (退税, 无呼叫转移).

Referee events: ``FalseWin(seat, kong_discarder=None)`` (诈和/顺和, 第十二条十一: 24 deal points deducted, all kong
points of the deal returned, the player takes no further part; declared on a 杠上炮 discard, the discarder's last
kong is refunded too, as on a real 杠上炮) and ``Barred(seat)`` (停和陪打, 第十一条四（五）: all kong points
of the deal returned; at a draw the player collects no 查大叫 and, if tenpai, pays none).

If the wall ran out with two or more players still in (流局), ``Deal.draw`` gives each of them an ``EndHand``;
the settlement then checks 花猪 and 大叫 and refunds the kongs of players who are not tenpai.

``settle(deal)`` returns point transfers (always summing to zero), referee penalties (主动花猪 deductions,
which are not paid to anyone) and an itemised ledger. The 2V2 supplement's settlement (teams, its deal end and
花猪) is mjtable.scoring.settlement_2v2, built on the same steps; ``imp`` below is its IMP table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from mjtable.errors import shown

from . import tiles as T
from .hand import Hand, Meld
from .sichuan import SUIT_CN, base_points, max_wait_fans, score

N_SEATS = 4
KONG_KINDS = ("melded", "added", "concealed")
ACTIVE_PIG_PENALTY = 24  # 第十二条十（一）→ 第二类, in the form 第十一条三（五） names: 扣当盘副分 24 分
FALSE_WIN_PENALTY = 24  # 第十二条十一（一）→ 第二类, in the form 第十一条三（五） names

# status of a player still in at a draw (第十条三（一）, （三）)
TENPAI, NOT_TENPAI, PIG_PASSIVE, PIG_ACTIVE = "tenpai", "not_tenpai", "pig_passive", "pig_active"


class SettlementError(ValueError):
    """An impossible deal (bad seat, a winner who already won, ...); the message says which event."""


@dataclass(frozen=True)
class Kong:
    seat: int
    kind: str  # "melded" | "added" | "concealed"
    discarder: int | None = None  # melded kong: who discarded the tile
    drawn: bool = True  # added kong: made with the tile just drawn (及时雨)


@dataclass(frozen=True)
class Win:
    winners: tuple[int, ...]
    fans: tuple[int, ...]  # one per winner, uncapped (the cap is applied here)
    discarder: int | None = None  # None = self-drawn (incl. 杠上花)
    kong_discard: bool = False  # 杠上炮: refund the discarder's last kong


@dataclass(frozen=True)
class FalseWin:
    seat: int
    kong_discarder: int | None = None  # declared on a 杠上炮 discard of this seat: its last kong still scores nothing


@dataclass(frozen=True)
class Barred:
    seat: int


@dataclass(frozen=True)
class Pig:
    """A player judged 主动花猪 during play (第六条三; 第十二条十（一）): 24 deal points deducted then, barred
    (停和陪打), and at a draw still settled as an active 花猪 (查大叫 paid) though its hand holds no void-suit tile
    by then (第十条三（三）2), with no second deduction."""

    seat: int


@dataclass(frozen=True)
class EndHand:
    """A player still in when the wall ran out: the standing tiles and melds, void suit, discards."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    void_suit: int | None = None
    discards: tuple[int, ...] = ()  # everything the player discarded this deal


@dataclass
class Deal:
    events: list = field(default_factory=list)
    draw: dict[int, EndHand] | None = None  # seat -> hand, when the deal ended in a draw


@dataclass(frozen=True)
class LedgerItem:
    kind: str  # "kong", "kong_refund", "win", "cha_da_jiao", "pig_penalty"
    payer: int
    payee: int | None  # None for a penalty (deducted, paid to nobody)
    amount: int
    note: str
    cause: str = ""  # a kong refund's cause ("kong_discard", "barred", "not_ready"): its clause differs


@dataclass
class Settlement:
    transfers: list[int]  # per seat, sums to zero
    penalties: list[int]  # per seat, <= 0 (referee deductions)
    ledger: list[LedgerItem]
    statuses: dict[int, str] = field(default_factory=dict)  # draw statuses, if any

    @property
    def net(self) -> list[int]:
        return [a + b for a, b in zip(self.transfers, self.penalties)]


def win_from_hands(hands: dict[int, Hand], discarder: int | None = None, kong_discard: bool = False) -> Win:
    """A Win event priced by scoring each winner's hand (mjtable.scoring.sichuan.score); raises if one is not a win."""
    fans = []
    for seat, h in hands.items():
        r = score(h)
        if not r.is_win:
            raise SettlementError(f"seat {seat}: not a winning hand ({r.reason})")
        fans.append(r.total)
    return Win(tuple(hands), tuple(fans), discarder, kong_discard)


# ------------------------------------------------------------------------------------------ draw statuses


def draw_status(h: EndHand) -> tuple[str, tuple[int, int] | None]:
    """(status, (fans, wait) if tenpai) for a player still in at a draw (第十条三)."""
    n = len(h.concealed) + sum(3 for m in h.melds)
    if n != 13 or any(not T.is_suited(t) for t in h.concealed):
        raise SettlementError(
            f"draw: a standing hand has 13 suited tiles (kongs as 3), got {n}: "
            f"{' '.join(T.code(t) for t in h.concealed)}"
        )
    if h.void_suit is not None:
        own = list(h.concealed) + [t for m in h.melds for t in m.tiles]
        if any(T.suit(t) == h.void_suit for t in own):
            # 主动花猪 (第六条三): a pung or kong of the void suit, or another suit discarded while void-suit tiles
            # were held; else 被动花猪 (every discard so far of the void suit): only treated as not tenpai
            melded = any(T.suit(t) == h.void_suit for m in h.melds for t in m.tiles)
            active = melded or any(T.suit(t) != h.void_suit for t in h.discards)
            return (PIG_ACTIVE if active else PIG_PASSIVE), None
    best = max_wait_fans(h.concealed, h.melds, h.void_suit)
    return (TENPAI, best) if best is not None else (NOT_TENPAI, None)


# ------------------------------------------------------------------------------------------ settlement


def _check_seat(s, what: str, i: int) -> None:
    if not isinstance(s, int) or not 0 <= s < N_SEATS:
        raise SettlementError(f"event {i}: {what} {shown(s)} is not a seat 0..{N_SEATS - 1}")


@dataclass
class _Books:
    """The running state of a deal being settled: the settlement so far, who won (or left), who is barred, how
    many have won, and each seat's kongs with their payments (to refund them later)."""

    out: Settlement = field(default_factory=lambda: Settlement([0] * N_SEATS, [0] * N_SEATS, []))
    won: list[int] = field(default_factory=list)
    barred: set[int] = field(default_factory=set)
    pigs: set[int] = field(default_factory=set)  # judged 主动花猪 during play (Pig events)
    n_winners: int = 0
    kong_items: dict[int, list[list[LedgerItem]]] = field(
        default_factory=lambda: {s: [] for s in range(N_SEATS)}
    )  # per kong, its payments

    def pay(self, kind, payer, payee, amount, note, cause=""):
        """Books one payment (nothing when amount is not positive); returns its ledger item, or None."""
        if amount <= 0:
            return None
        item = LedgerItem(kind, payer, payee, amount, note, cause)
        self.out.ledger.append(item)
        self.out.transfers[payer] -= amount
        self.out.transfers[payee] += amount
        return item

    def refund(self, items: Iterable[LedgerItem], why: str, cause: str):
        """Pays back each of items, payee to payer, as a kong refund."""
        for it in items:
            self.pay("kong_refund", it.payee, it.payer, it.amount, why, cause)

    def refund_last_kong(self, seat: int, why: str, cause: str) -> bool:
        """Pays back the seat's latest kong (杠上炮, and a false win on one) and forgets it; False if it made none."""
        if not self.kong_items[seat]:
            return False
        self.refund(self.kong_items[seat].pop(), why, cause)
        return True


def settle(deal: Deal) -> Settlement:
    """Settles a deal: its events in order (kongs, wins, referee events), then the barred players' kong refunds,
    then the draw, if the deal ended in one. Returns the settlement; raises SettlementError on an impossible deal."""
    books = _Books()
    for i, ev in enumerate(deal.events):
        if isinstance(ev, Kong):
            _settle_kong(books, ev, i)
        elif isinstance(ev, Win):
            _settle_win(books, ev, i)
        elif isinstance(ev, (FalseWin, Barred)):
            _settle_referee(books, ev, i)
        elif isinstance(ev, Pig):
            _settle_pig(books, ev, i)
        else:
            raise SettlementError(f"event {i}: unknown event {type(ev).__name__}")
    _refund_barred(books)
    if deal.draw is not None:
        _settle_draw(deal.draw, books)
    return books.out


def _settle_pig(books: _Books, ev: Pig, i: int) -> None:
    """A player judged 主动花猪 during play, event i: 24 deal points deducted, barred from winning this deal."""
    _check_seat(ev.seat, "seat", i)
    if ev.seat in books.won:
        raise SettlementError(f"event {i}: seat {ev.seat} is no longer in the deal")
    if ev.seat in books.pigs:
        raise SettlementError(f"event {i}: seat {ev.seat} was already judged 主动花猪 this deal")
    _penalise(books, ev.seat, "pig_penalty", ACTIVE_PIG_PENALTY, "主动花猪 judged during play: 第二类 扣当盘副分24分")
    books.pigs.add(ev.seat)
    books.barred.add(ev.seat)


def _settle_kong(books: _Books, ev: Kong, i: int) -> None:
    """A kong, event i: checks it, books its payments (刮风下雨) and records them as the seat's latest kong."""
    _check_seat(ev.seat, "kong seat", i)
    if ev.seat in books.won:
        raise SettlementError(f"event {i}: seat {ev.seat} already won and cannot kong")
    if ev.kind not in KONG_KINDS:
        raise SettlementError(f"event {i}: kong kind {shown(ev.kind)} not one of {', '.join(KONG_KINDS)}")
    items = []
    if ev.kind == "melded":
        _check_seat(ev.discarder, "kong discarder", i)
        if ev.discarder == ev.seat or ev.discarder in books.won:
            raise SettlementError(f"event {i}: discarder {ev.discarder} cannot feed this kong")
        items.append(books.pay("kong", ev.discarder, ev.seat, 2, "刮风: melded kong, discarder pays 2"))
    else:
        amount = 2 if ev.kind == "concealed" else (1 if ev.drawn else 0)
        note = (
            "下雨: concealed kong, 2 from each player still in"
            if ev.kind == "concealed"
            else "下雨: added kong with the drawn tile, 1 from each player still in"
        )
        for p in range(N_SEATS):
            if p != ev.seat and p not in books.won:
                items.append(books.pay("kong", p, ev.seat, amount, note))
    books.kong_items[ev.seat].append([x for x in items if x is not None])


def _check_win(books: _Books, ev: Win, i: int) -> None:
    """Raises SettlementError if the win, event i, cannot happen given who has won and who is barred so far."""
    if not ev.winners or len(ev.winners) != len(ev.fans):
        raise SettlementError(f"event {i}: a win needs one fan count per winner")
    if len(set(ev.winners)) != len(ev.winners):
        raise SettlementError(f"event {i}: a seat appears twice among the winners")
    for w in ev.winners:
        _check_seat(w, "winner", i)
        if w in books.won:
            raise SettlementError(f"event {i}: seat {w} already won (血战到底: a player wins once)")
    if any(f < 0 for f in ev.fans):
        raise SettlementError(f"event {i}: negative fans")
    if ev.discarder is None:
        if len(ev.winners) != 1:
            raise SettlementError(f"event {i}: a self-drawn win has one winner")
        if ev.kong_discard:
            raise SettlementError(f"event {i}: 杠上炮 needs a discarder")
    else:
        _check_seat(ev.discarder, "discarder", i)
        if ev.discarder in books.won or ev.discarder in ev.winners:
            raise SettlementError(f"event {i}: discarder {ev.discarder} is not a player still in")
    if any(w in books.barred for w in ev.winners):
        raise SettlementError(f"event {i}: a barred player (停和陪打) cannot win")
    if books.n_winners + len(ev.winners) > N_SEATS - 1:
        raise SettlementError(f"event {i}: more than three winners in one deal")


def _settle_win(books: _Books, ev: Win, i: int) -> None:
    """A win, event i: checks it, books each winner's payments, refunds the discarder's last kong on 杠上炮, and
    marks the winners as out of the deal."""
    _check_win(books, ev, i)
    for w, f in zip(ev.winners, ev.fans):
        base = base_points(f)
        if ev.discarder is None:
            for p in range(N_SEATS):
                if p != w and p not in books.won:
                    books.pay("win", p, w, base + 1, f"self-draw {f} fan(s): base {base} + 1 from each still in")
        else:
            books.pay("win", ev.discarder, w, base, f"discard win {f} fan(s): discarder pays base {base}")
    if ev.kong_discard:
        assert ev.discarder is not None  # _check_win: 杠上炮 needs a discarder
        if not books.refund_last_kong(ev.discarder, "杠上炮: this kong's points are refunded (退税)", "kong_discard"):
            raise SettlementError(f"event {i}: 杠上炮 but seat {ev.discarder} made no kong")
    books.won.extend(ev.winners)
    books.n_winners += len(ev.winners)


def _penalise(books: _Books, seat: int, kind: str, amount: int, note: str, cause: str = "") -> None:
    """A referee deduction: taken from the seat's deal points and paid to nobody (a ledger item with no payee)."""
    books.out.penalties[seat] -= amount
    books.out.ledger.append(LedgerItem(kind, seat, None, amount, note, cause))


FALSE_WIN_NOTE = "诈和: 第二类 扣当盘副分24分 (第十二条十一（一）)"


def _settle_referee(books: _Books, ev: FalseWin | Barred, i: int, note: str = FALSE_WIN_NOTE, cause: str = "") -> None:
    """A referee event, event i: a false win is penalised (its ledger note and cause as given) and takes the seat
    out of the deal; either event bars the seat (its kongs are refunded once all events are settled)."""
    _check_seat(ev.seat, "seat", i)
    if ev.seat in books.won:
        raise SettlementError(f"event {i}: seat {ev.seat} is no longer in the deal")
    if isinstance(ev, FalseWin):
        if ev.kong_discarder is not None:  # 第十二条十一（一）: 杠上炮的诈和，开杠者此杠依旧不得分
            _check_seat(ev.kong_discarder, "discarder", i)
            if ev.kong_discarder == ev.seat or not books.refund_last_kong(
                ev.kong_discarder, "杠上炮的诈和: the discarder's kong still scores nothing", "false_win_kong_discard"
            ):
                raise SettlementError(f"event {i}: a false win on 杠上炮 needs another seat's kong before it")
        _penalise(books, ev.seat, "false_win_penalty", FALSE_WIN_PENALTY, note, cause)
        books.won.append(ev.seat)  # takes no further part: pays and collects nothing more
    books.barred.add(ev.seat)


def _refund_barred(books: _Books) -> None:
    """Refunds every kong of each barred or false-win player, in seat order, and forgets those kongs."""
    for p in sorted(books.barred):  # kong points of a barred/false-win player all go back
        for items in books.kong_items[p]:
            books.refund(items, "停和陪打/诈和: all kong points of the deal returned", "barred")
        books.kong_items[p] = []


def _individual_pig(books: _Books, seat: int, hand: EndHand) -> None:
    """主动花猪 at a draw: 第二类, 24 deal points deducted (第十二条十（一）)."""
    suit = SUIT_CN.get(hand.void_suit, "?") if hand.void_suit is not None else "?"
    _penalise(
        books, seat, "pig_penalty", ACTIVE_PIG_PENALTY, f"主动花猪 (holds void suit {suit}): 第二类 扣当盘副分24分"
    )


def _settle_draw(
    draw: dict[int, EndHand],
    books: _Books,
    status_of: Callable[[EndHand], tuple[str, tuple[int, int] | None]] = draw_status,
    pig: Callable[[_Books, int, EndHand], None] = _individual_pig,
) -> None:
    """流局结算 (第十条三) + kong refunds of players not tenpai (第十条一（三）). ``status_of`` reads a standing
    hand's status, ``pig`` books an active pig's penalty: the 2V2 supplement gives its own of both."""
    out = books.out
    still_in = [p for p in range(N_SEATS) if p not in books.won]
    if sorted(draw) != still_in:
        raise SettlementError(f"draw: end hands given for seats {sorted(draw)}, players still in are {still_in}")
    if len(still_in) < 2:
        raise SettlementError("draw: a deal with three winners is over, there is no draw settlement")
    prices = {}
    for p in still_in:
        st, best = status_of(draw[p])
        if p in books.pigs:  # judged during play: an active 花猪 at the draw whatever its hand (第十条三（三）2)
            st, best = PIG_ACTIVE, None
        out.statuses[p] = st
        if best is not None and p not in books.barred:  # a barred player cannot charge others (不能查其他选手的叫)
            prices[p] = best
    for p in still_in:
        if out.statuses[p] == PIG_ACTIVE and p not in books.pigs:  # a judged one was deducted when judged
            pig(books, p, draw[p])
    for p in still_in:
        if out.statuses[p] == TENPAI:  # incl. a barred player who is tenpai: not charged either
            continue
        for items in books.kong_items[p]:
            books.refund(items, "流局未听牌: kong points refunded (第十条一（三）)", "not_ready")
        books.kong_items[p] = []
        for q, (fans, wait) in sorted(prices.items()):
            books.pay(
                "cha_da_jiao",
                p,
                q,
                base_points(fans),
                f"查大叫: {fans} fan(s) on {T.code(wait)}, base {base_points(fans)}",
            )


# ------------------------------------------------------------------------------------------ 2v2 IMP

# 2V2 补充细则 第一条七: (lowest 副差分, IMP)
IMP_TABLE: tuple[tuple[int, int], ...] = (
    (0, 0),
    (1, 1),
    (3, 2),
    (6, 3),
    (9, 4),
    (12, 5),
    (16, 6),
    (20, 7),
    (26, 8),
    (32, 9),
    (40, 10),
)


def imp(diff: int) -> int:
    """IMP for a board's 副差分 (a team's open + closed room points); not positive -> 0 (第一条六)."""
    if diff <= 0:
        return 0
    return max(v for lo, v in IMP_TABLE if diff >= lo)
