from gavel.tools.engine.roster import attendees_of, people_of, writer_of

# "Apologies" and "Progress" are names to the reading, as words the text never writes in lower case.
_NAMES = "Helen Carrow Sam Ridley Nadia Price Apologies Jo Amis Progress Natural England"
NAMES = frozenset(_NAMES.split())


def test_a_list_one_to_a_line_ends_at_the_first_line_neither_indented_nor_bulleted():
    notes = (
        "Boardwalk rebuild\nAttendees:\n   Dr Helen Carrow: ecologist\n   - Sam Ridley: warden\n   Nadia Price\n"
        "Apologies: Jo Amis\nProgress\n- Natural England consent received"
    )
    assert attendees_of(notes, people_of(notes, NAMES)) == {"Helen Carrow", "Sam Ridley", "Nadia Price"}


def test_the_writer_is_the_attendee_whose_name_signs_the_text():
    notes = "Present: Helen Carrow (ecologist), Sam Ridley (warden)"
    people = people_of(notes, NAMES)
    assert writer_of("Hi all,\nThe boardwalk is on track.\nThanks,\nSam", people, attendees_of(notes, people)) == (
        "Sam Ridley"
    )
