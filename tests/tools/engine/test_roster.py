from gavel.tools.engine.roster import attendees_of, capitalized, in_capitals, initialled, people_of, persons, writer_of

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


def test_a_word_in_capitals_names_the_one_attendee_whose_initials_or_first_name_it_writes():
    attendees = frozenset({"Rajesh Menon", "Chloe Abernethy", "Wilf Harrowby", "Jess Harrowby", "Ravi Patel"})
    people = {name.split()[0]: name for name in attendees} | {"Harrowby": "Wilf Harrowby"}
    assert in_capitals("CA", people, attendees) == "Chloe Abernethy"
    assert in_capitals("WILF", people, attendees) == "Wilf Harrowby"
    assert in_capitals("RAJ", people, attendees) == "Rajesh Menon"  # its start, three letters at least
    assert in_capitals("RA", people, attendees) is None  # not two, nor a start two attendees share
    assert in_capitals("VAT", people, attendees) is None
    # Initials skip a title the notes write as part of the name.
    councillor = frozenset({"Cllr Helen Brierley", "Cllr Tariq Khan"})
    assert in_capitals("HB", {"Helen": "Cllr Helen Brierley"}, councillor) == "Cllr Helen Brierley"


def test_initials_anywhere_name_their_attendee_unless_written_in_lower_case_too():
    attendees = frozenset({"Rajesh Menon", "Chloe Abernethy", "Andrea Nolan"})
    people = {name.split()[0]: name for name in attendees}
    line = "- E-bikes bought online? RAJ for, CA against AND NOT decided"
    assert initialled(line, people, attendees, frozenset({"and", "not"})) == {"Rajesh Menon", "Chloe Abernethy"}


def test_attendees_listed_flush_left_are_read_while_each_line_opens_with_a_full_name():
    notes = (
        "Present:\nCllr Judith Marsh (JM) - chair\nRob Tierney - ranger\nFiona Lister (FL) - Fire & Rescue\n\n"
        "Status\n- 30 goats arrive Mon 11 May\nNatural England consent recvd"
    )
    names = frozenset({"Judith", "Marsh", "Rob", "Tierney", "Fiona", "Lister", "Status", "Natural", "England", "Mon"})
    people = people_of(notes, names)
    assert attendees_of(notes, people) == {"Judith Marsh", "Rob Tierney", "Fiona Lister"}


def test_a_title_before_a_name_on_one_line_of_attendees_is_skipped():
    notes = "Present: Mrs Helen Byrne (HB, business mgr), Kwame Asante (KA, site mgr), Mr Ian Pritchard (IP)"
    people = people_of(notes, frozenset({"Helen", "Byrne", "Kwame", "Asante", "Ian", "Pritchard"}))
    assert attendees_of(notes, people) == {"Helen Byrne", "Kwame Asante", "Ian Pritchard"}


def test_a_hyphen_between_two_names_joins_them_and_both_give_an_initial():
    notes = "Present:\n  Dr Mei-Ling Chua (data)\n  Kofi Mensah (instruments)\nData to e-cloud"
    people = people_of(notes, frozenset({"Mei", "Ling", "Chua", "Kofi", "Mensah", "Data"}))
    assert people["Mei"] == people["Chua"] == "Mei-Ling Chua"
    assert in_capitals("MLC", people, attendees_of(notes, people)) == "Mei-Ling Chua"


def test_names_in_any_alphabet_are_capitalized_words():
    assert capitalized("Siobhan Ní Bhriain, Siân and KM agreed on e-bikes") == ["Siobhan", "Ní", "Bhriain", "Siân"]
    assert capitalized("Gordon McFie, Mike O'Rourke") == ["Gordon", "McFie", "Mike", "O'Rourke"]


def test_a_full_name_names_its_person_and_not_another_with_that_surname():
    people = {"Helen": "Helen Byrne", "Tom": "Tom Byrne", "Byrne": "Helen Byrne"}
    assert persons("Tom Byrne: notify the three lettings clubs", people) == {"Tom Byrne"}
    assert persons("Tom and Helen Byrne", people) == {"Tom Byrne", "Helen Byrne"}


def test_initials_the_notes_give_in_brackets_name_their_person_however_formed():
    notes = (
        "Attendees: Owen DeWitt (OD, plant mgr), Marie-Claire Lefèvre (MLC, process eng), Dr Conor McAllister (CMcA)\n"
        "Counter kit install booked w/ PO Ltd (PO Ltd area rep)"
    )
    names = frozenset({"Owen", "DeWitt", "Marie", "Claire", "Lefèvre", "Conor", "McAllister", "Counter", "Ltd"})
    people = people_of(notes, names)
    attendees = attendees_of(notes, people)
    assert in_capitals("MLC", people, attendees) == "Marie-Claire Lefèvre"  # not her initials as the name spells them
    assert people["CMcA"] == "Conor McAllister"
    assert "PO" not in people  # not beginning as any name does


def test_indented_lines_under_the_title_and_date_each_opening_with_a_full_name_list_the_attendees():
    notes = (
        "Cwm Teg Community Shop - PO counter reopening\nMon 8 Sept, 7pm, back room of the shop\n"
        "   Cllr Bronwen Hughes-Jones (chair) (BHJ)\n   Dave O'Neill (treasurer) (DO)\n   Maureen O'Neill (MO)\n"
        "Status\n- Counter kit install booked\n   - Maureen to confirm"
    )
    names = frozenset({"Bronwen", "Hughes", "Jones", "Dave", "O'Neill", "Maureen", "Status", "Counter"})
    people = people_of(notes, names)
    assert attendees_of(notes, people) == {"Bronwen Hughes-Jones", "Dave O'Neill", "Maureen O'Neill"}


def test_a_names_particles_join_it_and_its_initials_are_read_however_written():
    notes = (
        "Present: Rhiannon ap Gwilym (RapG, founder), Tom de la Haye - site agent, Dr Lars Østergaard (LØ), "
        "Fionn O'Reilly"
    )
    names = frozenset({"Rhiannon", "Gwilym", "Tom", "Haye", "Lars", "Østergaard", "Fionn", "O'Reilly"})
    people = people_of(notes, names)
    assert people["Rhiannon"] == people["Gwilym"] == people["RapG"] == "Rhiannon ap Gwilym"
    attendees = attendees_of(notes, people)
    assert attendees == {"Rhiannon ap Gwilym", "Tom de la Haye", "Lars Østergaard", "Fionn O'Reilly"}
    assert [in_capitals(word, people, attendees) for word in ("TdlH", "TH", "TDLH", "LØ", "FO'R")] == [
        "Tom de la Haye", "Tom de la Haye", "Tom de la Haye", "Lars Østergaard", "Fionn O'Reilly"
    ]  # fmt: skip
    assert initialled("agreed w/ LØ and TdlH", people, attendees, frozenset({"and"})) == {
        "Lars Østergaard", "Tom de la Haye"
    }  # fmt: skip


def test_a_capital_alone_between_names_pipes_between_attendees_and_initials_in_square_brackets():
    notes = (
        "Launch sync\nTue 12 Aug\nIn room: Shauna O'Dwyer [SO'D] producer | Tomás Ó Súilleabháin [TÓS] lab | Ryan Dee"
    )
    names = frozenset({"Shauna", "O'Dwyer", "Tomás", "Súilleabháin", "Ryan", "Dee"})
    people = people_of(notes, names)
    assert people["Tomás"] == people["TÓS"] == "Tomás Ó Súilleabháin" and people["SO'D"] == "Shauna O'Dwyer"
    assert attendees_of(notes, people) == {"Shauna O'Dwyer", "Tomás Ó Súilleabháin", "Ryan Dee"}
