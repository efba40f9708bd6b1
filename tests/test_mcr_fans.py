"""Hand-written MCR cases: every one of the 81 fans is shown present in one hand and correctly absent
(excluded by a 不计 list, or a near miss) in another; plus totals, payments, bad input and profiles."""
import pytest

from mjtable.scoring import tiles as T
from mjtable.scoring.hand import CHOW, Hand, Meld, Situation
from mjtable.scoring.mcr import FAN_TABLE, PROFILES, UnknownProfile, is_winning_shape, score, waits
from mjtable.scoring.notation import parse_hand, parse_tiles

S, E, W, N = T.SOUTH, T.EAST, T.WEST, T.NORTH
TSUMO = dict(self_drawn=True)

# (hand notation, situation kwargs, profile, must have {id: count or None}, must not have {ids})
CASES = [
    # ---- 88 ----
    ("111222333444z5m +5m", {}, "default", {"big_four_winds": 1, "four_concealed_pungs": 1},
     {"big_three_winds", "all_pungs", "prevalent_wind", "seat_wind", "pung_terminals_honors", "little_four_winds"}),
    ("555666777z123m9p +9p", {}, "default", {"big_three_dragons": 1},
     {"dragon_pung", "two_dragons_pungs", "little_three_dragons"}),
    ("2233446668s666z +8s", {}, "default", {"all_green": 1}, {"half_flush", "one_voided_suit"}),
    ("1112345678999m +5m", {}, "default", {"nine_gates": 1, "pung_terminals_honors": None},
     {"full_flush", "concealed_hand", "no_honors", "one_voided_suit"}),
    ("1112345678m [999m<] +9m", {}, "default", {"full_flush": 1}, {"nine_gates"}),
    ("5z [1111m<] [2222p^] [3333s>] [4444z] +5z", {}, "default", {"four_kongs": 1},
     {"three_kongs", "all_pungs", "single_wait", "melded_kong", "two_melded_kongs", "concealed_kong"}),
    ("1122334455667m +7m", {}, "default", {"seven_shifted_pairs": 1},
     {"seven_pairs", "full_flush", "single_wait", "concealed_hand", "no_honors", "pure_double_chow"}),
    ("1122334455667m +7m", TSUMO, "default", {"seven_shifted_pairs": 1, "self_drawn": 1}, {"fully_concealed_hand"}),
    ("19m19p19s1234567z +1m", {}, "default", {"thirteen_orphans": 1},
     {"all_types", "single_wait", "concealed_hand", "outside_hand", "all_terminals_and_honors"}),
    # ---- 64 ----
    ("111999m111p9p999s +9p", {}, "default", {"all_terminals": 1},
     {"all_pungs", "no_honors", "outside_hand", "pung_terminals_honors", "all_terminals_and_honors", "double_pung"}),
    ("111222333z44z56m +7m", {}, "default", {"little_four_winds": 1},
     {"big_three_winds", "pung_terminals_honors"}),
    ("555666z77z123m45p +6p", {}, "default", {"little_three_dragons": 1}, {"dragon_pung", "two_dragons_pungs"}),
    ("1112225556667z +7z", {}, "default", {"all_honors": 1},
     {"all_pungs", "all_terminals_and_honors", "pung_terminals_honors", "outside_hand", "one_voided_suit"}),
    ("111m222p333s444m5z +5z", {}, "default", {"four_concealed_pungs": 1, "single_wait": 1},
     {"all_pungs", "concealed_hand", "three_concealed_pungs"}),
    # mcr-1998-table.txt 12 四暗刻 (不计门前清、碰碰和); mcr-wmo-2006.txt 3.8.1 12 (自摸加计不求人)
    ("111m222p333s444m5z +5z", TSUMO, "default", {"four_concealed_pungs": 1, "fully_concealed_hand": 1},
     {"self_drawn", "concealed_hand"}),
    ("111m222p333s44m55z +4m", {}, "default", {"three_concealed_pungs": 1, "all_pungs": 1},
     {"four_concealed_pungs"}),
    ("1122337788995m +5m", {}, "default", {"pure_terminal_chows": 1},
     {"full_flush", "all_chows", "pure_double_chow", "two_terminal_chows", "seven_pairs"}),
    # ---- 48 ----
    ("111122223333m5p +5p", {}, "default", {"quadruple_chow": 1},
     {"pure_triple_chow", "pure_double_chow", "tile_hog", "pure_shifted_pungs"}),
    ("111222333444m5p +5p", {}, "default", {"four_pure_shifted_pungs": 1},
     {"pure_shifted_pungs", "all_pungs", "pure_triple_chow"}),
    # ---- 32 ----
    ("122333444556m5p +5p", {}, "default", {"four_pure_shifted_chows": 1}, {"pure_shifted_chows"}),
    ("456m5z [1111m<] [2222p^] [3333s] +5z", {}, "default", {"three_kongs": 1},
     {"melded_kong", "concealed_kong", "two_melded_kongs", "concealed_kong_and_melded_kong"}),
    ("456m5z [1111m] [2222p] [3333s>] +5z", {}, "default", {"three_kongs": 1, "two_concealed_pungs": 1},
     {"two_concealed_kongs", "concealed_kong_and_melded_kong"}),
    ("111m999p9s111555z +9s", {}, "default", {"all_terminals_and_honors": 1},
     {"all_pungs", "outside_hand", "pung_terminals_honors"}),
    # ---- 24 ----
    ("113355779m1122z +9m", {}, "default", {"seven_pairs": 1}, {"concealed_hand", "single_wait"}),
    ("113355779m1122z +9m", TSUMO, "default", {"seven_pairs": 1, "self_drawn": 1}, {"fully_concealed_hand"}),
    ("147m25p3s1234567z +6s", {}, "default", {"greater_honors_knitted": 1},
     {"lesser_honors_knitted", "all_types", "concealed_hand", "single_wait", "knitted_straight"}),
    ("222m444p666s888m2p +2p", {}, "default", {"all_even_pungs": 1}, {"all_pungs", "all_simples", "no_honors"}),
    ("1112345677899m +9m", {}, "default", {"full_flush": 1}, {"no_honors", "one_voided_suit"}),
    ("123m456p5s [123m<] [123m<] +5s", {}, "default", {"pure_triple_chow": 1},
     {"pure_double_chow", "pure_shifted_pungs"}),
    ("111222333m456p5s +5s", {}, "default", {"pure_shifted_pungs": 1}, {"pure_triple_chow"}),
    ("789999m789p8p789s +8p", {}, "default", {"upper_tiles": 1}, {"upper_four", "no_honors"}),
    ("456555m456p4p456s +4p", {}, "default", {"middle_tiles": 1}, {"all_simples", "no_honors"}),
    ("111123m123p2p123s +2p", {}, "default", {"lower_tiles": 1}, {"lower_four", "no_honors"}),
    # ---- 16 ----
    ("123456789m123p5s +5s", {}, "default", {"pure_straight": 1}, {"short_straight", "two_terminal_chows"}),
    ("123789m123789p5s +5s", {}, "default", {"three_suited_terminal_chows": 1},
     {"mixed_double_chow", "two_terminal_chows", "all_chows", "no_honors"}),
    ("123234345m789p1z +1z", {}, "default", {"pure_shifted_chows": 1}, {"pure_double_chow"}),
    ("345555m456p567s5p +5p", {}, "default", {"all_five": 1}, {"all_simples", "no_honors"}),
    ("222m222p222s456m9p +9p", {}, "default", {"triple_pung": 1}, {"double_pung"}),
    ("222m444p666s789m1z +1z", {}, "default", {"three_concealed_pungs": 1}, {"two_concealed_pungs"}),
    # ---- 12 ----
    ("147m258p36s12345z +6z", {}, "default", {"lesser_honors_knitted": 1},
     {"knitted_straight", "all_types", "concealed_hand", "single_wait"}),
    ("147m258p369s1234z +5z", {}, "default", {"lesser_honors_knitted": 1, "knitted_straight": 1}, set()),
    ("147m258p369s123m5z +5z", {}, "default", {"knitted_straight": 1, "single_wait": 1}, {"all_chows"}),
    ("147m258p369s456m1p +1p", {}, "default", {"knitted_straight": 1, "all_chows": 1}, set()),
    ("6678m678p789999s +6m", {}, "default", {"upper_four": 1}, {"no_honors", "upper_tiles"}),
    ("123444m234p234s1p +1p", {}, "default", {"lower_four": 1}, {"no_honors", "lower_tiles"}),
    ("111222333z456m9p +9p", {}, "default", {"big_three_winds": 1, "prevalent_wind": 1, "seat_wind": 1},
     {"pung_terminals_honors"}),
    ("111222333z999m5p +5p", dict(seat_wind=N, prevalent_wind=N), "default",
     {"big_three_winds": 1, "pung_terminals_honors": 1}, {"prevalent_wind", "seat_wind"}),
    # ---- 8 ----
    ("123m456p789s123m5z +5z", {}, "default", {"mixed_straight": 1, "pure_double_chow": 1}, set()),
    ("123m456p789p123m5z +5z", {}, "default", {}, {"mixed_straight"}),
    ("123p234p888p456s5z +5z", {}, "default", {"reversible_tiles": 1}, {"one_voided_suit"}),
    ("123m123p123s456m9p +9p", {}, "default", {"mixed_triple_chow": 1}, {"mixed_double_chow"}),
    ("111m222p333s456m9p +9p", {}, "default", {"mixed_shifted_pungs": 1}, set()),
    ("23m11z [345m<] [456p<] [678s<] +1m", {}, "default", {"chicken_hand": 1}, {"all_chows", "single_wait"}),
    ("123m456p678s234s5z +5z", dict(self_drawn=True, last_tile=True), "default", {"last_tile_draw": 1},
     {"self_drawn"}),
    ("123m456p678s234s5z +5z", dict(last_tile=True), "default", {"last_tile_claim": 1}, {"last_tile_draw"}),
    ("123m456p678s9s [1111z<] +9s", dict(self_drawn=True, kong_replacement=True), "default",
     {"out_with_replacement_tile": 1}, {"self_drawn"}),
    ("123m456p9s111z [678s<] +9s", dict(self_drawn=True, kong_replacement=True), "default", {"self_drawn": 1},
     {"out_with_replacement_tile"}),
    ("123m456p789s11z13s +2s", dict(robbing_kong=True, last_copy=True), "default", {"robbing_the_kong": 1},
     {"last_tile"}),
    ("123m456p678s11z22s +2s", dict(robbing_kong=True), "default", {}, {"robbing_the_kong"}),
    # ---- 6 ----
    ("555m9p [111m<] [222p^] [333s>] +9p", {}, "default", {"all_pungs": 1}, set()),
    ("123456789m111z5m +5m", {}, "default", {"half_flush": 1}, {"one_voided_suit"}),
    ("123m234p345s789m1z +1z", {}, "default", {"mixed_shifted_chows": 1}, set()),
    ("123m456p678s111z5z +5z", {}, "default", {"all_types": 1}, set()),
    ("5z [123m<] [456p<] [789s<] [111z^] +5z", {}, "default", {"melded_hand": 1}, {"single_wait"}),
    ("345s678s9s [1111m] [2222p] +9s", {}, "default", {"two_concealed_kongs": 1},
     {"concealed_kong", "two_concealed_pungs"}),
    ("555666z123m456p9s +9s", {}, "default", {"two_dragons_pungs": 1}, {"dragon_pung"}),
    # ---- 5 / 4 ----
    ("345s678s9s [1111m] [2222p<] +9s", {}, "default", {"concealed_kong_and_melded_kong": 1},
     {"melded_kong", "concealed_kong"}),
    ("123m789m123p999s1z +1z", {}, "default", {"outside_hand": 1}, set()),
    ("123m456p678s234s5z +5z", TSUMO, "default", {"fully_concealed_hand": 1}, {"concealed_hand", "self_drawn"}),
    ("345s678s9s [1111m<] [2222p^] +9s", {}, "default", {"two_melded_kongs": 1}, {"melded_kong"}),
    ("12m456p678s234s55z +3m", dict(last_copy=True), "default", {"last_tile": 1}, set()),
    ("123m456p678s234s5z +5z", dict(last_copy=True), "default", {}, {"last_tile"}),
    ("123m456p78s11z [111s<] +9s", {}, "default", {}, {"last_tile"}),
    ("123m456p11z78s [999s<] +9s", {}, "default", {"last_tile": 1}, set()),
    # ---- 2 ----
    ("555z123m456p789s9p +9p", {}, "default", {"dragon_pung": 1}, set()),
    ("222z123m456p789s9p +9p", dict(seat_wind=S, prevalent_wind=E), "default", {"seat_wind": 1},
     {"prevalent_wind", "pung_terminals_honors"}),
    ("222z123m456p789s9p +9p", dict(seat_wind=W, prevalent_wind=S), "default", {"prevalent_wind": 1},
     {"seat_wind", "pung_terminals_honors"}),
    ("444z123m456p789s9p +9p", dict(seat_wind=W, prevalent_wind=S), "default", {"pung_terminals_honors": 1},
     {"seat_wind", "prevalent_wind"}),
    ("123m456p678s234s5z +5z", {}, "default", {"concealed_hand": 1}, {"fully_concealed_hand"}),
    ("123m345p567s234m5p +5p", {}, "default", {"all_chows": 1}, {"no_honors"}),
    ("123m444456p789s1z +1z", {}, "default", {"tile_hog": 1}, set()),
    ("222m222p456s789s1z +1z", {}, "default", {"double_pung": 1}, set()),
    ("222m444p456s789s1z +1z", {}, "default", {"two_concealed_pungs": 1}, set()),
    ("456s789s1z [2222m] [333p<] +1z", {}, "default", {"concealed_kong": 1}, {"two_concealed_pungs"}),
    ("234m456p678s222m5p +5p", {}, "default", {"all_simples": 1}, {"no_honors"}),
    # ---- 1 ----
    ("123123m456p789s1z +1z", {}, "default", {"pure_double_chow": 1}, set()),
    ("123m123p456s789s1z +1z", {}, "default", {"mixed_double_chow": 1, "short_straight": 1}, set()),
    ("123m789m456p456s1z +1z", {}, "default", {"two_terminal_chows": 1, "mixed_double_chow": 1}, set()),
    ("111m456p789s234s1z +1z", {}, "default", {"pung_terminals_honors": 1}, set()),
    ("456s789s1z [2222m<] [333p<] +1z", {}, "default", {"melded_kong": 1}, set()),
    ("123m456m789p234p1z +1z", {}, "default", {"one_voided_suit": 1}, set()),
    ("111m456p678s234s5m +5m", {}, "default", {"no_honors": 1}, set()),
    ("12m456p789s234s55z +3m", {}, "default", {"edge_wait": 1}, set()),
    ("12345m789p234s55z +3m", {}, "default", {}, {"edge_wait"}),
    ("13m456p789s234s55z +2m", {}, "default", {"closed_wait": 1}, set()),
    ("123m456p678s234s5z +5z", {}, "default", {"single_wait": 1}, set()),
    ("123m456p5z [789s<] [234s<] +5z", TSUMO, "default", {"self_drawn": 1, "single_wait": 1},
     {"fully_concealed_hand"}),
    # ---- near misses: fans that no other fan excludes, shown absent ----
    ("222m444p666s888m5p +5p", {}, "default", {"four_concealed_pungs": 1}, {"all_even_pungs"}),
    ("345555m456p4p567s +4p", {}, "default", {"all_simples": 1}, {"all_five", "middle_tiles"}),
    ("2233445558s666z +8s", {}, "default", {"half_flush": 1}, {"all_green"}),
    ("111222555666z9m +9m", {}, "default", {"all_terminals_and_honors": 1}, {"all_honors", "thirteen_orphans"}),
    ("111999m111p999s1z +1z", {}, "default", {"all_terminals_and_honors": 1}, {"all_terminals"}),
    ("111222333z44z56m +7m", {}, "default", {"little_four_winds": 1}, {"big_four_winds"}),
    ("555666z77z123m45p +6p", {}, "default", {"little_three_dragons": 1}, {"big_three_dragons"}),
    ("123m345p567s234m5p +5p", {}, "default", {"all_chows": 1}, {"chicken_hand"}),
    ("456m5z [1111m<] [2222p^] [3333s] +5z", {}, "default", {"three_kongs": 1}, {"four_kongs"}),
    ("123234345m789p1z +1z", {}, "default", {"pure_shifted_chows": 1}, {"four_pure_shifted_chows"}),
    ("111222333m456p5s +5s", {}, "default", {"pure_shifted_pungs": 1}, {"four_pure_shifted_pungs"}),
    ("147m258p36s12345z +6z", {}, "default", {"lesser_honors_knitted": 1}, {"greater_honors_knitted"}),
    ("123m456p678s234s5z +5z", dict(self_drawn=True, last_tile=True), "default", {"last_tile_draw": 1},
     {"last_tile_claim"}),
    ("5z [123m<] [456p<] [789s<] [111z^] +5z", TSUMO, "default", {"self_drawn": 1}, {"melded_hand"}),
    ("123m234p456s789m1z +1z", {}, "default", {}, {"mixed_shifted_chows"}),
    ("111m222p444s456m9p +9p", {}, "default", {}, {"mixed_shifted_pungs"}),
    ("123m123p234s456m9p +9p", {}, "default", {"mixed_double_chow": 1}, {"mixed_triple_chow"}),
    ("123m456p789s123m5z +5z", {}, "default", {"mixed_straight": 1}, {"pure_straight"}),
    ("123789m123789p5m +5m", {}, "default", {"two_terminal_chows": None}, {"three_suited_terminal_chows",
                                                                           "pure_terminal_chows"}),
    ("123m123p5s [123m<] [123m<] +5s", {}, "default", {"pure_triple_chow": 1}, {"quadruple_chow"}),
    ("123p234p888p456s7z +7z", {}, "default", {"one_voided_suit": 1}, {"reversible_tiles"}),
    ("113355779m1122z +9m", {}, "default", {"seven_pairs": 1}, {"seven_shifted_pairs"}),
    ("222m222p333s456m9p +9p", {}, "default", {"double_pung": 1}, {"triple_pung"}),
    # ---- competition profile ----
    ("1113m456p789s234s +3m", {}, "default", {}, {"single_wait", "closed_wait"}),
    ("1113m456p789s234s +3m", {}, "competition", {"single_wait": 1}, set()),
    ("1113m456p789s234s +2m", {}, "competition", {"closed_wait": 1}, set()),
    ("12345m789p234s55z +3m", {}, "competition", {"edge_wait": 1}, set()),
    ("13m456p789s234s55z +2m", dict(winning_tile_apart=False), "competition", {}, {"closed_wait"}),
    ("123m456p678s234s5z +5z", dict(last_copy=True, winning_tile_apart=False), "competition", {},
     {"last_tile", "single_wait"}),
    ("1112345678999m +5m", dict(winning_tile_apart=False), "competition", {"full_flush": 1}, {"nine_gates"}),
    ("147m58p369s456m11p +2p", {}, "competition", {"knitted_straight": 1}, {"all_chows", "closed_wait"}),
    ("147m28p369s456m11p +5p", {}, "competition", {"knitted_straight": 1, "closed_wait": 1}, {"all_chows"}),
    ("147m258p369s4456m +4m", {}, "default", {"tile_hog": 1}, set()),
    ("147m258p369s4456m +4m", {}, "competition", {}, {"tile_hog"}),
    ("123m456p678s234s5z +5z", dict(self_drawn=True, heavenly_win=True), "competition", {"heavenly_hand": 1},
     {"self_drawn", "single_wait"}),
    ("123m456p678s234s5z +5z", dict(self_drawn=True, heavenly_win=True), "default", {"fully_concealed_hand": 1},
     {"heavenly_hand"}),
    ("12m456p678s234s55z +3m", dict(self_drawn=True, seat_wind=S, heavenly_win=True), "competition",
     {"edge_wait": 1, "fully_concealed_hand": 1}, {"heavenly_hand"}),
    ("123m456p678s234s5z +5z", dict(seat_wind=S, earthly_win=True), "competition", {"earthly_hand": 1},
     {"concealed_hand"}),
    ("123m456p678s234s5z +5z", dict(human_win=True), "competition", {"human_hand": 1}, set()),
    # 行牌 15: 不求人 and 门前清 count for every shape that meets them (无一例外; 门前清 implied by 地和 alone)
    ("123m456p789s2345s +5s", dict(self_drawn=True, heavenly_win=True), "competition",
     {"heavenly_hand": 1, "fully_concealed_hand": 1}, {"self_drawn"}),
    ("123m456p789s2345s +5s", dict(human_win=True), "competition", {"human_hand": 1, "concealed_hand": 1}, set()),
    # 字一色, 清幺九, 混幺九 (1998: 绿一色 too) are defined by pungs and a pair: not on 七对 in the literal profiles
    ("11z22z22z33z44z55z1z +1z", {}, "default", {"all_honors": 1, "seven_pairs": 1}, set()),
    ("11z22z22z33z44z55z1z +1z", {}, "mcr1998", {"seven_pairs": 1}, {"all_honors"}),
    ("11m11m99m99m11s99s1p +1p", {}, "wmo2006", {"seven_pairs": 1, "no_honors": 1}, {"all_terminals"}),
    ("11m11m99m99m11z11s1p +1p", {}, "mcr1998", {"seven_pairs": 1}, {"all_terminals_and_honors"}),
    ("22s33s44s66s88s66z2s +2s", {}, "mcr1998", {"seven_pairs": 1, "half_flush": 1}, {"all_green"}),
    ("22s33s44s66s88s66z2s +2s", {}, "wmo2006", {"seven_pairs": 1, "all_green": 1}, set()),
    ("111z222z333z444z5z +5z", {}, "mcr1998", {"all_honors": 1}, set()),
    # 核分实例 (6): two concealed kongs beside a third concealed pung are 三暗刻 + 双明杠 (their melded parts)
    ("555s789s1z [1111m] [2222p] +1z", {}, "competition", {"three_concealed_pungs": 1, "two_melded_kongs": 1},
     {"two_concealed_kongs"}),
    ("555s789s1z [1111m] [2222p] +1z", {}, "default", {"three_concealed_pungs": 1, "two_concealed_kongs": 1},
     {"two_melded_kongs"}),
    ("567s789s1z [1111m] [2222p] +1z", {}, "competition", {"two_concealed_kongs": 1}, {"two_melded_kongs"}),
    # 不重复原则: every pung and the pair of 清幺九 are of 1 or 9, so it always holds 全单刻 too
    ("111m999m111s999s1p +1p", {}, "competition", {"all_terminals": 1}, {"all_odd_pungs"}),
    ("111m999m111s999s1p +1p", {}, "competition_literal", {"all_terminals": 1, "all_odd_pungs": 1}, set()),
    ("1234455556678m +9m", {}, "competition", {"all_knitted_full": 1},
     {"full_flush", "tile_hog", "all_chows", "pure_straight", "pure_double_chow", "no_honors"}),
    ("1234455556678m +9m", {}, "competition_literal", {"all_knitted_full": 1, "pure_straight": 1},
     {"full_flush", "tile_hog", "all_chows"}),
    ("223333446688s6z +6z", {}, "competition", {"green_seven_pairs": 1}, {"tile_hog", "all_green", "seven_pairs"}),
    ("223333446688s6z +6z", {}, "competition_literal", {"green_seven_pairs": 1, "all_green": 1, "seven_pairs": 1},
     {"tile_hog"}),
    ("1122334455667z +7z", {}, "competition", {"honors_seven_pairs_full": 1},
     {"outside_hand", "all_honors", "seven_pairs"}),
    ("1122334455667z +7z", {}, "competition_literal", {"honors_seven_pairs_full": 1, "all_honors": 1},
     {"outside_hand"}),
    ("1111223344556z +6z", {}, "competition", {"honors_seven_pairs": 1}, {"tile_hog", "honors_seven_pairs_full"}),
    ("11199m1199p1199s +1m", {}, "competition", {"terminals_seven_pairs": 1},
     {"tile_hog", "no_honors", "all_terminals", "seven_pairs"}),
    ("333p555s777m9p [111m<] +9p", {}, "competition", {"all_odd_pungs": 1}, {"all_pungs", "no_honors"}),
    ("333p555s777m9p [111m<] +9p", {}, "default", {"all_pungs": 1}, {"all_odd_pungs"}),
    ("113355779m1122z +9m", {}, "competition", {"seven_pairs": 1, "concealed_hand": 1}, {"single_wait"}),
    ("111m222p333s444m5z +5z", TSUMO, "competition", {"four_concealed_pungs": 1, "fully_concealed_hand": 1},
     {"self_drawn", "all_pungs"}),
    ("1112345678999m +5m", TSUMO, "competition", {"nine_gates": 1, "fully_concealed_hand": 1}, {"self_drawn"}),
    ("1112224445557z +7z", {}, "competition",
     {"all_honors": 1, "big_three_winds": 1, "dragon_pung": 1, "implied_terminal_pung": 4, "concealed_hand": 1},
     {"all_pungs", "pung_terminals_honors"}),
    ("1112224445557z +7z", {}, "default", {"all_honors": 1, "big_three_winds": 1, "dragon_pung": 1},
     {"implied_terminal_pung"}),
    ("111999m222z5z [333z^] +5z", dict(seat_wind=S, prevalent_wind=S), "competition",
     {"all_terminals_and_honors": 1, "seat_wind": 1, "prevalent_wind": 1, "implied_terminal_pung": 1}, set()),
    # ---- mcr1998: the printed 不计 lists only ----
    ("111999m111p9p999s +9p", {}, "mcr1998", {"all_terminals": 1, "double_pung": 2}, set()),
    ("111m222p333s444m5z +5z", TSUMO, "mcr1998", {"four_concealed_pungs": 1, "fully_concealed_hand": 1},
     {"self_drawn"}),
]


def _ids(case):
    return f"{case[2]}:{case[0]}:{','.join(case[3]) or 'not ' + ','.join(sorted(case[4]))}"


@pytest.mark.parametrize("text, sit, profile, have, absent", CASES, ids=[_ids(c) for c in CASES])
def test_fan_case(text, sit, profile, have, absent):
    res = score(parse_hand(text, Situation(**sit)), profile)
    got = {f.id: f.count for f in res.fans}
    assert res.fans, res.reason
    for fid, n in have.items():
        assert fid in got, f"{fid} missing: {got} ({res.decomposition})"
        if n is not None:
            assert got[fid] == n, f"{fid}: {got}"
    assert not (absent & set(got)), f"should not count {absent & set(got)}: {got}"
    assert res.base == sum(f.points for f in res.fans if f.id != "flowers")


def test_every_fan_is_shown_present_and_absent():
    have = {fid for c in CASES for fid in c[3]}
    absent = {fid for c in CASES for fid in c[4]}
    ids = {r.id for r in FAN_TABLE if r.id != "flowers"}
    assert ids - have == set()
    excludable = {e for r in FAN_TABLE for e in r.excludes_ids}
    assert excludable - absent == set(), "every fan some 不计 list names is shown not counted at least once"
    standard = {r.id for r in FAN_TABLE if not r.house and r.id != "flowers"}
    assert standard - absent == set(), "every other standard fan has a near miss"


def test_table_has_81_fans_plus_flowers_with_1998_values():
    std = [r for r in FAN_TABLE if not r.house]
    assert len(std) == 82 and sorted(r.number for r in std) == list(range(1, 83))
    by = {r.number: r.value for r in std}
    assert [by[n] for n in (1, 7, 8, 13, 14, 15, 16, 18, 19, 27, 28, 33, 34, 38, 39, 47, 48, 54, 55, 56, 59, 60,
                            69, 70, 81, 82)] == \
        [88, 88, 64, 64, 48, 48, 32, 32, 24, 24, 16, 16, 12, 12, 8, 8, 6, 6, 5, 4, 4, 2, 2, 1, 1, 1]
    ids = {r.id for r in FAN_TABLE}
    for r in FAN_TABLE:
        assert set(r.excludes_ids) <= ids, r.id


def test_known_totals_and_payments():
    res = score(parse_hand("1112345678999m +5m"))    # 九莲 88 + 双暗刻 2 + 幺九刻 (111, 999 less the one in 九莲)
    assert (res.is_win, res.base) == (True, 91)
    res = score(parse_hand("123m456p678s234s5z +5z 1f2f", Situation(self_drawn=True)))
    assert {f.id for f in res.fans} == {"fully_concealed_hand", "single_wait", "flowers"}
    assert (res.base, res.total, res.is_win) == (5, 7, False)
    assert "8-point" in res.reason and "flowers do not count" in res.reason
    res = score(parse_hand("123m456p789s123m5z +5z 3f"))         # 花龙 8 + 一般高 1 + 门前清 2 + 单钓 1 + flower
    assert (res.base, res.total, res.is_win) == (12, 13, True)
    assert res.payments == {"discarder": 21, "other": 8}
    res = score(parse_hand("123m456p789s123m5z +5z", Situation(self_drawn=True)))
    assert res.is_win and res.payments == {"each": 8 + res.total}
    assert res.decomposition and "+5z" in res.decomposition


def test_chicken_hand_is_exactly_8():
    res = score(parse_hand("23m11z [345m<] [456p<] [678s<] +1m"))
    assert [(f.id, f.points) for f in res.fans] == [("chicken_hand", 8)] and res.is_win and res.total == 8


@pytest.mark.parametrize("hand, why", [
    (Hand((0,) * 4 + (1, 2, 3, 4, 5, 6, 7, 8, 9, 9), (), 0), "5 copies"),
    (Hand((0, 1, 2, 3, 4, 5), (), 6), "wrong tile count"),
    (Hand((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10), (Meld(CHOW, 7, source="left"),), 9), "chow cannot start"),
    (Hand((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), (), None), "no winning tile"),
    (Hand((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), (), 13, (36, 36)), "flower appears twice"),
    (Hand((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), (), 13, (), Situation(seat_wind=5)), "seat_wind"),
])
def test_impossible_hands_give_a_reason_not_an_exception(hand, why):
    res = score(hand)
    assert not res.is_win and res.reason.startswith("impossible hand") and why in res.reason
    assert not is_winning_shape(hand)


def test_malformed_input_is_a_reason_too():
    for bad in (Hand(("1m",), (), 0), Hand((0,) * 13, ("chow",), 1), None):
        res = score(bad)
        assert not res.is_win and res.reason.startswith("impossible hand")
        assert not is_winning_shape(bad)


def test_not_a_winning_shape():
    res = score(parse_hand("123m456p789s234s1z +5z"))
    assert not res.is_win and "not a winning shape" in res.reason and res.fans == []


def test_unknown_profile_is_an_error_never_a_silent_default():
    with pytest.raises(UnknownProfile, match="unknown MCR rule profile 'hk'"):
        score(parse_hand("123m456p678s234s5z +5z"), "hk")
    assert score(parse_hand("123m456p678s234s5z +5z"), None).profile == "default"
    assert {"default", "competition"} <= set(PROFILES)
    for p in PROFILES.values():
        assert p.description and all(key and text for key, text in p.differences)


def test_contradictory_flags_are_dropped_with_a_note():
    res = score(parse_hand("123m456p678s9s111z +9s", Situation(self_drawn=True, kong_replacement=True)))
    assert any("杠上开花 ignored" in n for n in res.notes)
    res = score(parse_hand("123m456p678s234s5z +5z", Situation(self_drawn=True, heavenly_win=True)))
    assert any("天和 is not a fan" in n for n in res.notes)


def test_is_winning_shape_and_waits():
    assert is_winning_shape(parse_hand("19m19p19s1234567z +1m"))
    assert not is_winning_shape(parse_hand("19m19p19s1234566z +1m"))
    nine = [0] * 34
    for t in parse_tiles("1112345678999m"):
        nine[t] += 1
    assert waits(nine) == list(range(9))
    assert waits(parse_tiles("19m19p19s1234567z")) == [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]
    assert waits(parse_tiles("119m19p19s123456z")) == [33]
    assert waits(parse_tiles("147m258p369s123z")) == []
    assert waits(parse_tiles("147m258p369s1234z")) == [31, 32, 33]           # 全不靠 with a full 组合龙
    assert waits(parse_tiles("147m258p369s23p11z")) == [9, 12]                   # 组合龙 + set + pair
    pung2m = Meld("pung", 1, source="across")
    melds = (pung2m, Meld(CHOW, 9, source="left"), Meld(CHOW, 18, source="left"))
    assert waits(parse_tiles("2333m"), melds) == [0, 3]              # 2m would be a 5th copy
    assert waits(parse_tiles("2333m"), melds[1:] + (Meld(CHOW, 12, source="left"),)) == [0, 1, 3]
    with pytest.raises(ValueError, match="0..4"):
        waits([5] + [0] * 33)
    with pytest.raises(ValueError, match="tile ids"):
        waits([40, 1, 2])
