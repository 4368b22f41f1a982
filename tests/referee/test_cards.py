import pytest

from companion.referee.cards import CARD_NAMES, deck, deck_size, parse_card, parse_color, points
from companion.errors import UnknownCardError, UnknownColorError


def test_cards_vocabulary_has_every_name_once():
    assert len(CARD_NAMES) == len(set(CARD_NAMES)) == 57
    assert "red_draw_two" in CARD_NAMES and "wild_customizable" in CARD_NAMES


@pytest.mark.parametrize(
    "edition, size", [("classic", 108), ("modern", 112), ("swap", 109)]
)
def test_cards_deck_sizes(edition, size):
    assert deck_size(edition) == size


def test_cards_swap_deck_count_is_set_by_table():
    assert deck("swap", swap_cards=3)["wild_swap_hands"] == 3
    assert deck_size("swap", swap_cards=3) == 111


@pytest.mark.parametrize(
    "name, value",
    [("red_0", 0), ("blue_9", 9), ("green_skip", 20), ("yellow_reverse", 20),
     ("red_draw_two", 20), ("wild", 50), ("wild_draw_four", 50),
     ("wild_shuffle_hands", 50), ("wild_customizable", 50), ("wild_swap_hands", 40)],
)
def test_cards_points(name, value):
    assert points(name) == value


def test_cards_parser_rejects_unknown_name_with_closest():
    with pytest.raises(UnknownCardError, match="did you mean 'red_5'"):
        parse_card("red5")
    with pytest.raises(UnknownCardError, match="'wild_draw_four'"):
        parse_card("wild_draw_4")
    # a wild has no colour: its colour is named after it is played
    with pytest.raises(UnknownCardError, match="did you mean 'wild'\\?"):
        parse_card("yellow_wild")


def test_cards_parser_rejects_non_string():
    with pytest.raises(UnknownCardError):
        parse_card(5)


def test_cards_colour_parser():
    assert parse_color("blue") == "blue"
    with pytest.raises(UnknownColorError, match="'green'"):
        parse_color("gren")


def test_cards_properties():
    c = parse_card("yellow_7")
    assert (c.color, c.symbol, c.number, c.is_wild) == ("yellow", "7", 7, False)
    w = parse_card("wild_draw_four")
    assert w.is_wild and w.color is None and w.number is None


def test_a_far_word_gets_no_far_guess():
    # 'bogus' was answered "did you mean 'blue_skip'?", 'notes' "did you mean 'teal_9'?"
    from companion.referee.cards import UnknownCardError, parse_card, parse_color

    with pytest.raises(UnknownCardError) as caught:
        parse_card("bogus")
    assert str(caught.value) == "unknown card 'bogus' (card names look like red_5, blue_skip, wild_draw_four)"
    with pytest.raises(Exception, match=r"^unknown colour 'mauve' \(one of: red, yellow, green, blue, pink, teal, orange, purple\)$"):
        parse_color("mauve")
