"""The quantity reading a `supported` check makes before asking the model (tools/engine/quantities.py): notes state
quantities tersely, and a good text that spells them out must not read as stating what its source never does."""

from gavel.tools.engine.quantities import dates, days, followers, quantities, source_quantities, unstated


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


def test_no_one_and_a_hyphened_unit_count_nothing_but_a_number_word_leading_them_does():
    assert quantities("No one was sure whether it counts.") == set()
    assert quantities("Should we add a night-time visit for owls?") == set()
    assert quantities("Two two-hour brownouts are scheduled.") == {("2", None), ("2", "hour")}
    assert quantities("It took one day.") == {("1", "day")}


def test_a_clock_time_is_one_number_however_it_is_written():
    stated = source_quantities("Start time stays 8am, lunch 12.30 pm. Budget 1.20 M. Retention 12 or 24 mths?")
    assert unstated("The start time stays at 8:00 a.m., lunch at 12:30 p.m.", stated) == []
    assert unstated("The budget is 1.2 million.", stated) == []
    assert unstated("Is retention 12 or 24 months?", stated) == []
    assert unstated("The start time moves to 08:30 a.m.", stated) == ["8.3 clock"]


def test_a_dates_day_stands_alone_since_notes_date_a_day_without_its_month():
    stated = source_quantities("- Work days Sat 17 + Sat 31 May\n- Review 14/3")
    assert unstated("Work days are Saturday 17 May and Saturday 31 May.", stated) == []
    assert unstated("Go-live is on 7 July.", stated) == ["7"]
    assert quantities("We sold 3 more in May 2025.") == {("3", None), ("2025", None)}


def test_a_duration_is_stated_by_two_dates_of_one_source_line_or_of_the_sentence_itself():
    stated = source_quantities("- Full go-live = Mon 4 Nov (was 28 Oct)\n- Kickoff 1 Sep\n- Review 20 Sep")
    assert unstated("Full go-live has moved back one week.", stated) == []
    assert "2 week" not in unstated("Go-live moved back two weeks, from 24 March to Monday 7 April.", stated)
    assert unstated("Go-live moved back two weeks.", stated) == ["2 week"]
    assert unstated("The review is 19 days after kickoff.", stated) == ["19 day"]


def test_a_month_belongs_to_the_day_before_it_not_the_number_after():
    assert ("15", "june") in source_quantities("Survey window 1 Apr - 15 Jun")
    assert quantities("go live 1 December; 9 of 12 trucks") == {("1", None), ("9", None), ("12", None)}
    assert ("9", "december") not in source_quantities("go live 1 December; 9 of 12 trucks")
    assert quantities("good luck with that one!") == set()


def test_a_month_a_comma_ends_dates_no_day_after_it():
    # fresh35's grotto notes: "9" is the sessions' first hour, not 9 December.
    stated = source_quantities("=> Sensory/quiet sessions Sun mornings in Dec, 9-10am, 8 families per slot")
    assert ("9", "december") not in stated
    assert unstated("Quiet sessions run on Sunday mornings in December, from 9am to 10am.", stated) == []
    assert days("In March, 12 people came") == set()


def test_a_ranges_later_unit_belongs_to_its_first_end_too():
    stated = source_quantities("It moved its start from 8:00 to 8:50 a.m. Delivery 19-21 Dec.")
    assert unstated("It used to start at 8:00 a.m.", stated) == []
    assert unstated("Boxes go out on 19 December.", stated) == []


def test_a_pronoun_one_in_the_source_still_supports_a_one_in_the_text():
    stated = source_quantities("Campaigners want three new trees planted for every one felled.")
    assert unstated("Campaigners want a three-for-one rule.", stated) == []


def test_a_decade_in_the_source_states_ten_years():
    stated = source_quantities("Rates have risen to their highest level in a decade, and two decades ago they fell.")
    assert unstated("Coverage has reached a ten-year high.", stated) == []
    assert unstated("They fell 20 years ago.", stated) == []
    assert unstated("Coverage has reached a twelve-year high.", stated) == ["12 year"]


def test_without_dates_a_number_written_as_a_dates_day_is_left_out_where_it_is_one():
    assert quantities("Android 12 bugs - fix by Wed 12 Mar", dates=False) == {("12", None)}
    assert quantities("Race day Sun 7 Sep", dates=False) == set()
    assert days("Race day Sun 7 Sep, Android 12") == {"7"}


def test_a_compound_number_word_is_one_number():
    assert quantities("Twenty-three of the 24 crates; forty volunteers") == {("23", None), ("24", None), ("40", None)}


def test_a_ranges_first_day_is_dated_by_the_month_at_its_other_end():
    assert days("Engel commissioning 16-18 June, from 16 to 30 September") == {"16", "18", "30"}
    assert ("16", None) not in quantities("Commissioning 16-18 June", dates=False)


def test_a_weekday_or_th_dates_a_day_but_not_a_time():
    assert days("on Friday 15, by the 3rd, Saturday 10 pm") == {"15", "3"}


def test_a_24_hour_time_is_stated_by_the_afternoon_hour():
    stated = source_quantities("- new volunteer training: Sat 16 Sept 10-1, Millbank library")
    assert unstated("The training runs 10:00–13:00 on Saturday 16 September.", stated) == []
    assert unstated("The training runs 10:00–14:00.", stated) == ["14"]


def test_an_evening_hour_is_stated_by_the_24_hour_time():
    stated = source_quantities(" - Bridge St closure approved: Sat 16 06:00 - Sun 17 22:00")
    assert unstated("The closure runs to 10pm on Sunday 17 August.", stated) == []
    assert unstated("The closure runs to 9pm on Sunday 17 August.", stated) == ["9 clock"]
    assert unstated("The closure opens at 10am.", stated) == ["10 clock"]


def test_as_written_a_count_is_not_stated_by_a_dates_day_nor_by_two_dates_gap():
    stated = source_quantities("- hands-on session Fri 15 Aug, max 10 people")
    assert unstated("It is limited to 15 people.", stated) == []
    assert unstated("It is limited to 15 people.", stated, as_written=True) == ["15"]
    sessions = source_quantities("- sessions 20-30 October")
    assert unstated("There are 10 sessions.", sessions, as_written=True) == ["10"]
    assert unstated("The next is on Monday 10 November.", sessions) == ["10"]  # a gap dates nothing


def test_dates_are_days_with_their_month_beside_them_not_a_ranges_first_day():
    assert dates("until Monday 8 December, then from April 7 to 19-21 Dec") == {
        ("8", "december"),
        ("7", "april"),
        ("21", "december"),
    }
    assert dates("flag duplicates over 5% | 20 June") == {("20", "june")}
    assert dates("5 20 June") == {("20", "june")}  # a first day at the very start has no month before it


def test_followers_are_each_figure_with_the_word_or_sign_after_it():
    assert followers("buried to 0.9 m, 70% done, 17 of 24 panels; 1,400 ") == {
        ("0.9", "m"),
        ("70", "%"),
        ("17", "of"),
        ("24", "panels"),
        ("1400", ""),
    }
