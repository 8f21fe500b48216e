"""The quantity reading a `supported` check makes before asking the model (tools/engine/quantities.py): notes state
quantities tersely, and a good text that spells them out must not read as stating what its source never does."""

from gavel.tools.engine.quantities import quantities, source_quantities, unstated


def test_notes_abbreviations_support_the_spelled_out_quantity():
    stated = source_quantities("- Supplier needs 48 h notice\n- Budget v1 = $412k over 3 yrs\n- Pace ~30 pages/wk")
    assert unstated("The supplier needs 48 hours' notice.", stated) == []
    assert unstated("Version 1 came to $412k over three years.", stated) == []
    assert unstated("At roughly 30 pages a week we would miss launch.", stated) == []
    assert unstated("The supplier needs 24 hours' notice.", stated) == ["24 hour"]


def test_a_second_is_the_ordinal_not_one_second():
    assert quantities("We will do a second parallel run before cutover.") == set()
    assert quantities("It took a minute.") == {("1", "minute")}


def test_a_unit_a_word_later_or_at_the_other_end_of_a_range_belongs_to_the_number():
    stated = source_quantities("Downtime used: 4 of 14 scheduled nights. Packing may stretch from 2 days to 3.")
    assert unstated("We have used 4 of the 14 nights of downtime.", stated) == []
    assert unstated("Packing may need 3 days instead of 2.", stated) == []
    assert unstated("We have used 4 of the 14 weeks.", stated) == ["14 week"]


def test_thousands_read_as_one_number_however_they_are_written():
    stated = source_quantities("Heated enclosures est. $40-60k. Can the contingency ($250k) cover it?")
    assert unstated("Enclosures are estimated at $40,000-60,000.", stated) == []
    assert unstated("Can the remaining $250,000 contingency cover it?", stated) == []
    assert unstated("Enclosures are estimated at $45,000.", stated) == ["45000"]
    assert quantities("It weighs 1,5 kg.") == {("1.5", "kg")}


def test_the_generous_reading_is_the_sources_alone():
    assert quantities("4 of 14 scheduled nights") == {("4", None), ("14", None)}
    assert ("14", "night") in source_quantities("4 of 14 scheduled nights")
