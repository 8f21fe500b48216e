"""A sentence its source contradicts, read with no model (tools/engine/contradicted.py): a rival number on the line
the sentence restates, or another owner of that line's action."""

from gavel.tools.engine.contradicted import read_certain
from gavel.tools.engine.notes import read_source

NOTES = """Ashgrove Primary - boiler replacement - site mtg
Present: Helen Price (head), Dan Okafor (site mgr), Priya Nair (bursar), Mick Farrell (contractor)

Status
- Flue liner - wrong dia. delivered (150 vs 200mm) -> replacement due 16 Jul
- Spend so far £61,200 / £84,000 (incl. £5k contingency)

Actions
- Mick - confirm flue delivery in writing - Fri 11 Jul
- Dan - tell summer club + parents re cold lunches - Mon 14 Jul
- Priya - raise PO for rad valves - Fri 11 Jul
"""


def contradicted(sentence: str, text: str | None = None) -> list[str]:
    return read_certain(sentence, read_source(NOTES, text or sentence)).contradicted


def test_a_rival_number_on_the_line_the_sentence_restates_contradicts_it():
    assert contradicted("The replacement flue liner is due on 23 July.") == ["23 where it states 16"]
    spend = "Spend so far is £71,200 of £84,000, including the contingency."
    assert contradicted(spend) == ["71200 where it states 61200"]
    assert contradicted("The replacement flue liner is due on 16 July.") == []


def test_a_number_the_line_does_not_rival_is_only_unstated():
    # A count the text makes, of no size the line states; a figure worked out from two of the line's.
    certain = read_certain("We have three actions open.", read_source(NOTES, "We have three actions open."))
    assert certain.unstated == ["3"] and certain.contradicted == []
    assert contradicted("So far we have spent £61,200 of £84,000, leaving £22,800.") == []


def test_a_date_rivals_only_a_date_and_a_count_only_a_count():
    notes = (
        "- Race day Sun 7 Sep - 1,850 riders registered (45, 90, 160 km routes)\n- Android 12 bugs - fix by Wed 12 Mar"
    )
    routes = "1,850 riders are registered across the three routes on Sunday 7 September."
    assert read_certain(routes, read_source(notes, routes)).contradicted == []
    moved = "1,850 riders are registered for race day on Sunday 9 September."
    assert read_certain(moved, read_source(notes, moved)).contradicted == ["9 where it states 7"]
    # The line's 12 is a version and a day: the version rivals the count.
    bugs = "Fix the Android 13 bugs by Wednesday 12 March."
    assert read_certain(bugs, read_source(notes, bugs)).contradicted == ["13 where it states 12"]


def test_a_count_the_notes_write_only_as_a_day_is_contradicted_by_a_rival_on_its_line():
    notes = "- Race day Sun 7 Sep\n- hands-on varroa session Sat 23 Aug, max 10 people, booking required"
    capped = "The hands-on varroa session on Saturday 23 August is limited to 7 people, booking required."
    certain = read_certain(capped, read_source(notes, capped))
    assert certain.unstated == [] and certain.contradicted == ["7 where it states 10"]


def test_an_action_given_to_another_person_than_the_line_that_opens_with_its_owner():
    assert contradicted("Dan: raise the PO for the radiator valves by Friday 11 July.") == [
        "Dan Okafor where it names Priya Nair"
    ]
    assert contradicted("Priya Nair: raise the PO for the radiator valves by Friday.") == []
    # Each part of a sentence is matched on its own: two owners swapped are two contradictions.
    swapped = "Dan will confirm the flue delivery in writing, and Mick will tell the summer club and parents."
    assert contradicted(swapped) == ["Dan Okafor where it names Mick Farrell", "Mick Farrell where it names Dan Okafor"]


def test_no_line_standing_out_contradicts_nothing():
    # "Fri 11 Jul" ends two action lines: a sentence matching both as well contradicts neither.
    assert contradicted("Helen: by Friday 11 July.") == []
    assert contradicted("Priya will speak to Helen.") == []


def test_a_word_the_text_writes_in_lower_case_names_nobody():
    notes = "- Grace - chase Bramley for an answer - Fri 20 Jun\nPresent: Grace Moyo, Tom Achebe"
    text = "Tom will chase Bramley for an answer by Friday 20 June, with grace."
    assert read_certain(text, read_source(notes, text)).contradicted == []
    plain = "Tom will chase Bramley for an answer by Friday 20 June."
    assert read_certain(plain, read_source(notes, plain)).contradicted == ["Tom Achebe where it names Grace Moyo"]


def test_an_owner_heading_checked_in_one_run_with_the_action_before_it_gives_that_action_to_nobody():
    # A text of more than 40 sentences is checked in runs of them (engine/sentences.py): "Iain", the heading over
    # his actions, then shares a run with Priya's last action, which the notes give to Priya.
    actions = "Priya\n- Raise the PO for the radiator valves - Fri 11 Jul\n\nIain\n- Chase the council - Mon 14 Jul"
    text = "\n".join(f"- Item {n} is on track." for n in range(40)) + "\n\n" + actions
    notes = NOTES + "- Iain - chase council - Mon 14 Jul\nPresent: Iain Drummond"
    run = "Raise the PO for the radiator valves - Fri 11 Jul Iain"
    assert read_certain(run, read_source(notes, text)).contradicted == []
    assert read_certain(run, read_source(notes, run)).contradicted == ["Iain Drummond where it names Priya Nair"]


ROTA = """Harbour fun day - planning call
Thu 5 Jun, 19:00, Zoom
On call: Ruth Amos (chair), Kofi Mensah (volunteers), Lena Berg (treasurer), Sam Price (Price Marquees)

Actions
* book the marquee and the generator -> Kofi, 12 Jun
* [Lena] open the float account for the stalls, 13 Jun
Ruth
    - write to the harbour master about the slipway closure - 16 Jun
"""


def owner_contradicted(sentence: str) -> list[str]:
    return read_certain(sentence, read_source(ROTA, sentence)).contradicted


def test_an_owner_is_read_wherever_the_notes_line_names_an_attendee():
    row = "| Lena | Book the marquee and the generator | 12 June |"
    assert owner_contradicted(row) == ["Lena Berg where it names Kofi Mensah"]
    assert owner_contradicted("| Kofi | Book the marquee and the generator | 12 June |") == []
    assert owner_contradicted("Ruth will open the float account for the stalls by 13 June.") == [
        "Ruth Amos where it names Lena Berg"
    ]


def test_an_indented_action_is_owned_by_the_attendee_it_sits_under():
    assert owner_contradicted("Kofi will write to the harbour master about the slipway closure by 16 June.") == [
        "Kofi Mensah where it names Ruth Amos"
    ]
    assert owner_contradicted("Ruth will write to the harbour master about the slipway closure.") == []


def test_only_attendees_own_actions():
    # A part that names the line's attendee among others contradicts nothing; a name outside the opening list owns
    # nothing.
    assert owner_contradicted("Kofi will book the marquee and the generator with Price Marquees.") == []
    assert owner_contradicted("Gwen will book the marquee and the generator by 12 June.") == []


def test_a_helper_named_on_an_indented_action_leaves_it_its_headings():
    notes = ROTA + "Kofi\n    - set up the stalls (Lena helping) - 20 Jun\n"
    row = "Kofi: set up the stalls, with Lena's help, by 20 June."
    assert read_certain(row, read_source(notes, row)).contradicted == []


def test_a_number_the_line_writes_bare_is_not_contradicted_by_its_unit():
    notes = "- Playtests: 3 so far (staff only), avg escape time 52 min - target 55-60"
    target = "The average escape time in playtests is 52 minutes against our 55–60 minute target."
    certain = read_certain(target, read_source(notes, target))
    assert certain.unstated == ["60 minute"] and certain.contradicted == []


def test_an_owner_written_on_the_line_beneath_a_task_owns_it():
    notes = ROTA + "5. Written reply + apology to the stallholder, offer a refund\n   Owner: Lena / Due: Wed 19 Jun\n"
    reply = "| 5 | Send a written reply and apology to the stallholder, offering a refund | Ruth Amos | 19 June |"
    assert read_certain(reply, read_source(notes, reply)).contradicted == ["Ruth Amos where it names Lena Berg"]


def test_the_writers_i_and_a_tables_me_are_the_attendee_who_signs():
    email = "{} the harbour master about the slipway closure | 16 June |\n\nThanks,\n{}\nVolunteers"
    assert owner_contradicted(email.format("| Me | Write to", "Kofi Mensah")) == [
        "Kofi Mensah where it names Ruth Amos"
    ]
    assert owner_contradicted(email.format("I will write to", "Kofi")) == ["Kofi Mensah where it names Ruth Amos"]
    assert owner_contradicted(email.format("| Me | Write to", "Ruth")) == []
    assert owner_contradicted(email.format("| Me | Write to", "Gwen Hughes")) == []  # no attendee signs: no one
    assert owner_contradicted("Let me know if the slipway closure letter to the harbour master works.\n\nKofi") == []


def test_a_sentence_that_restates_two_lines_alike_is_read_against_both():
    # Three content words shared with each line: neither stands out, and the overtime line states a rival.
    notes = "Rota trial review\n- overtime hours down 14% vs Dec\n- sickness absence about flat, 4.1% (Dec 4.3%)\n"
    both = "Overtime hours are down 21% on December; sickness absence is broadly flat (4.1%, against 4.3%)."
    assert read_certain(both, read_source(notes, both)).contradicted == ["21 where it states 14"]
    right = both.replace("21%", "14%")
    assert read_certain(right, read_source(notes, right)).contradicted == []


def test_a_date_whose_day_the_source_states_as_something_else_is_read_against_its_line():
    # fresh35's grotto: "8" is stated, as "8 families", so only the date as a whole is new.
    notes = "DECIDED\n=> Quiet sessions Sun mornings, 8 families per slot\n=> Closed Mondays until Mon 15 Dec\n"
    moved = "The grotto will be closed on Mondays until Monday 8 December."
    assert read_certain(moved, read_source(notes, moved)).contradicted == ["8 december where it states 15"]
    right = moved.replace("8 December", "15 December")
    assert read_certain(right, read_source(notes, right)).contradicted == []


def test_a_date_is_not_moved_where_its_line_states_its_day_without_the_month():
    notes = "Actions\n- Lee - order the spare pump - Fri 15 (was Fri 22)\n"
    sentence = "Lee will order the spare pump by Friday 15 August."
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_a_moved_date_is_rivalled_by_any_other_day_its_line_dates_but_not_one_the_sentence_gives():
    # fresh35's bowling centre: "1" is stated ("lanes 1-4"), and the 24th is no figure of the 1st's size.
    notes = "lanes 1-4 -> new pinsetters in\nLee -> train 2 techs on string machines -> Wed 24 Sept\n"
    moved = "Lee will train two technicians on the string machines by Wednesday 1 October."
    assert read_certain(moved, read_source(notes, moved)).contradicted == ["1 october where it states 24"]
    both = "Lee will train two technicians on the string machines between Wednesday 1 October and 24 September."
    assert read_certain(both, read_source(notes, both)).contradicted == []


def test_an_owner_is_read_from_the_whole_sentence_when_no_part_restates_a_line():
    # Split at its commas, no part shares enough with Martin's line; the sentence does, with "Friday" as "Fri".
    notes = (
        "Bells rehang mtg\nPresent: Clare Hodgson (vicar), Martin Greaves (tower captain), Gwen Okafor (fundraising)\n"
        "Martin: fix Tues practices at St Mary's Upton with their tower captain (due Fri 27 Jun)\n"
        "Gwen: apply to County Churches Trust for £10k (due Mon 30 Jun)"
    )
    sentence = (
        "Clare will set up the Tuesday practices at St Mary's, Upton, with their tower captain, by Friday 27 June."
    )
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == [
        "Clare Hodgson where it names Martin Greaves"
    ]
    right = sentence.replace("Clare", "Martin")
    assert read_certain(right, read_source(notes, right)).contradicted == []


def test_a_part_that_confirms_its_owner_keeps_the_whole_sentence_from_being_read():
    # "Chris needs to close the remaining 8 booths" restates Chris's line; the sentence as a whole leans to Yusuf's.
    notes = (
        "Summit planning, Thu 15 May\nAttendees: Elena (lead), Chris (sponsorship), Yusuf (content)\n"
        "- Chris: close remaining 8 booths by 31 July\n"
        "- Open question: livestream sessions for remote attendees? Yusuf to get AV quote by 6 June"
    )
    sentence = (
        "Chris needs to close the remaining 8 booths by 31 July; whether we livestream sessions for remote attendees "
        "depends on the AV quote, due 6 June."
    )
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_a_count_its_line_writes_as_a_day_is_not_contradicted():
    # "Nos 1-4 July" reads as days 1 to 4; the text's "Nos 1–4 in July" counts houses, which the line writes too.
    notes = "Sash windows mtg\n- 2 phases: Nos 1-4 July, Nos 5-8 Sept - residents stay in situ"
    sentence = "The work will be done in two phases, Nos 1–4 in July and Nos 5–8 in September."
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_attendees_listed_one_to_a_line_under_a_heading_own_their_actions():
    # A name the reading does not spell ("Siân") is skipped, not taken for the list's end.
    notes = (
        "Almshouse windows - buildings sub-cttee\nPresent\n  Revd Canon Ann Blackwood - chair\n  Dr Siân Morgan - vet\n"
        "  Dr Felicity Osei - trustee\n  Ray Dobbs - warden\n\nACTIONS\n"
        "| site visit w/ Imran Qureshi (conservation officer) re glazing | Felicity | Fri 8 May |\n"
        "| letter to residents re phases + access | Ray | Fri 1 May |"
    )
    sentence = (
        "Ray will make a site visit with Imran Qureshi, the conservation officer, about the glazing, by Friday 8 May."
    )
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == [
        "Ray Dobbs where it names Felicity Osei"
    ]


def test_a_label_opening_an_action_line_is_no_owner():
    notes = (
        "Schools tour\nPresent:\nSiobhan Kelly, artistic director\nLucas Ferreira, performer\nActions\n"
        "Action: SK by Tue 20 Jan - agree relaxed perf changes w/ Dr Amira Bensaid"
    )
    sentence = "Siobhan: agree the relaxed performance changes with Dr Amira Bensaid by Tuesday 20 January."
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_the_notes_title_owns_nothing():
    notes = (
        "Northfield Hospital - Sleep Service - home sleep apnoea testing kits rollout\nMon 8 Feb 2027, 14:00, Teams\n"
        "- 40 kits ordered"
    )
    sentence = "Here is a summary of Monday's Teams meeting on the rollout of home sleep apnoea testing kits."
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_an_owner_by_initials_or_in_capitals_after_a_number_or_a_label_owns_the_line():
    notes = (
        "Spokesmith Cycles - staff mtg\nPresent:\n- Rajesh Menon - owner\n- Chloe Abernethy (CA) - workshop manager\n"
        "- Dimitri Papadopoulos (DP) - mechanic\n\nActions\n3) DP: e-bike intake checklist - Wed 28 Jan\n"
        "Action: RAJ by Fri 30 Jan - ask Cyclescheme re e-service on employee vouchers\n"
        "Open Qs\n- E-bikes bought online (not from us)? RAJ for, CA against -> review after 1st month"
    )
    moved = "Chloe: e-bike intake checklist by Wednesday 28 January."
    assert read_certain(moved, read_source(notes, moved)).contradicted == [
        "Chloe Abernethy where it names Dimitri Papadopoulos"
    ]
    asked = "Dimitri will ask Cyclescheme about e-service on employee vouchers by Friday 30 January."
    assert read_certain(asked, read_source(notes, asked)).contradicted == [
        "Dimitri Papadopoulos where it names Rajesh Menon"
    ]
    # "RAJ" is Rajesh as "CA" is Chloe: the open question names them both.
    kept = "Whether we service e-bikes bought online is open (Rajesh is for it, Chloe against)."
    assert read_certain(kept, read_source(notes, kept)).contradicted == []


def test_a_texts_me_opening_a_list_line_is_its_writer():
    notes = (
        "Present:\n  Gareth Pryce (GP) - technical services\n  Carys Bell (CB) - estates\n  Priya Shah - director\n"
        "Actions\n[GP] arrange hire of 2 portable ROs - on site by Fri 27 Mar\n"
        "   - confirm power + drain points w/ CB\n"
        "1) PRIYA: chase CAA re mass ascent permission - Fri 20 Mar"
    )
    mine = (
        "Me: arrange the portable RO hire by Friday 27 March, confirming power and drain points with Carys.\n\nGareth"
    )
    assert [read_certain(s, read_source(notes, mine)).contradicted for s in mine.split("\n\n")] == [[], []]
    # A first name in capitals of any length: "PRIYA" is Priya Shah's line.
    moved = "Carys will chase the CAA on mass ascent permission by Friday 20 March."
    assert read_certain(moved, read_source(notes, moved)).contradicted == ["Carys Bell where it names Priya Shah"]


def test_names_alone_before_an_action_share_it():
    notes = (
        "Present:\n  Kenji Watanabe - production\n  Adaeze Nwosu - producer\n  Lucas Ferreira - performer\n"
        "Actions\n- Van insurance excess £500 or £1,000, an open point - KW + AN to decide by Fri 30 Jan"
    )  # "AN" is no one, written "an" too
    text = "Kenji and I: decide the van insurance excess (£500 or £1,000) by Friday 30 January.\n\nThanks,\nAdaeze"
    sentence = text.split("\n\n")[0]
    assert read_certain(sentence, read_source(notes, text)).contradicted == []
    moved = "Lucas: decide the van insurance excess (£500 or £1,000) by Friday 30 January."
    assert read_certain(moved, read_source(notes, moved)).contradicted == [
        "Lucas Ferreira where it names Kenji Watanabe"
    ]


def test_may_beside_a_number_is_the_month_a_line_is_restated_by():
    notes = (
        "Attendees:\nHannah Barr-Lennox (HB) - project mgr\nFiona Kerr (FK) - comms\n\nRisks\n"
        "- Noise complaints from longer hours\nActions\nFK - letter to Shore Rd residents re longer hours - 19 May"
    )
    text = "I will write to Shore Road residents about the longer working hours by 19 May.\n\nKind regards,\nHannah"
    assert read_certain(text.split("\n\n")[0], read_source(notes, text)).contradicted == [
        "Hannah Barr-Lennox where it names Fiona Kerr"
    ]


def test_someone_a_line_beneath_names_helps_with_its_action():
    notes = (
        "Present:\nRob Tierney (RT) - ranger\nAyesha Khan (AK) - grazier\nFiona Lister (FL) - fire service\n\n"
        "Action: RT by Fri 24 Apr - water bowser on site, check trough points\n   - AK to confirm daily water need"
    )
    sentence = "Water bowser on site with trough points checked by 24 April (Ayesha to confirm daily water need)."
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_a_word_a_hyphen_joins_owns_no_line():
    notes = (
        "Holloway Barn conversion - site mtg #6\nThurs 5 June 2025, on site (Holloway Farm, Lower Stowey)\n"
        "Progress\n- Strip-out of lean-to done. Main barn roof untouched - bat licence still pending"
    )
    sentence = "Holloway Barn: main roof on hold pending bat licence"
    assert read_certain(sentence, read_source(notes, sentence)).contradicted == []


def test_a_figure_changed_to_one_the_notes_state_elsewhere_is_read_at_its_clause():
    notes = (
        "AW26 sampling\nRange: 24 styles planned, 21 confirmed (3 dropped)\n"
        "Fit sessions w/ model: 2 done, next Wed 18 Jun\n"
        "Subs £85/player, same as last yr\n- New kit: 60 shirts arrived, 40 still on order"
    )
    changed = "We planned 24 styles, and we have held three fit sessions with the model, the next on 18 June."
    assert read_certain(changed, read_source(notes, changed)).contradicted == ["3 where it states 2"]
    # A clause ends at its sentence: "Subs stay at £85" restates the subs line, not the kit line before it.
    kept = "The remaining 40 shirts are still on order. **Subs.** Subs stay at £85 per player."
    assert read_certain(kept, read_source(notes, kept)).contradicted == []


def test_a_figure_no_clause_places_is_read_with_its_sentence_against_the_same_word_after_it():
    notes = (
        "AWS-2 (mid-glacier, 780 m): mast tilt 8°, buried 1.4 m of 3.0 m mast -> radiation sensors partly shaded\n"
        "- AWS-2: extend mast w/ 0.9 m section + re-guy; reinstall radiation sensors at new top\n"
        "- Blood service allocated 48 appointment slots (we hoped for 60)\n- 31 staff booked so far, poster up Mon"
    )
    changed = (
        "AWS-2 (mid-glacier, 780 m): the mast has tilted 8° and is buried to 0.9 m of its 3.0 m height, so the "
        "radiation sensors are partly shaded."
    )
    assert read_certain(changed, read_source(notes, changed)).contradicted == ["0.9 where it states 1.4"]
    # "31 staff" is no figure "60)" is written with.
    kept = "The blood service has allocated 48 appointment slots and 31 staff have booked so far."
    assert read_certain(kept, read_source(notes, kept)).contradicted == []


def test_a_clauses_figure_is_read_against_the_one_figure_of_its_size_its_line_gives():
    notes = (
        "2.1 Spend to date £412,000 of £580,000 approved budget, incl disposal licence fees £18,500 (2.4 km haul)\n"
        "2.2 Contingency £35,000 released for extra sweep survey"
    )
    changed = "Spend to date is £412,000 of the approved £580,000, including £35,000 in disposal licence fees."
    assert read_certain(changed, read_source(notes, changed)).contradicted == ["35000 where it states 18500"]


def test_an_owner_whose_name_has_particles_or_letters_beyond_ascii_owns_the_line():
    notes = (
        "Quay wall repair - progress mtg\nTue 3 Jun, site hut\nPresent: Anwen ap Rhys (AapR, engineer), "
        "Joost van der Berg (contractor), Dr Søren Ørsted (SØ, ecologist)\n\nActions\n"
        "1) JvdB: order sheet piles - Fri 6 Jun\nAapR - bat survey brief to SØ - Mon 9 Jun\n"
        "SØ: nesting check before piling - Wed 11 Jun"
    )
    moved = "Anwen will order the sheet piles by Friday 6 June."
    assert read_certain(moved, read_source(notes, moved)).contradicted == [
        "Anwen ap Rhys where it names Joost van der Berg"
    ]
    kept = (
        "Joost will order the sheet piles by Friday 6 June, and Søren will do the nesting check by Wednesday 11 June."
    )
    assert read_certain(kept, read_source(notes, kept)).contradicted == []
    swapped = "Joost: nesting check before piling, by Wednesday 11 June."
    assert read_certain(swapped, read_source(notes, swapped)).contradicted == [
        "Joost van der Berg where it names Søren Ørsted"
    ]


def test_a_sentence_read_whole_naming_no_attendee_gives_no_action():
    notes = (
        "Harbour Arts - lighting mtg\nWed 8 Jan\n  Attendees:\n    Lotte de Vries (LdV) – technical director\n"
        "    Callum Reid (CR) – electrician\n\nActions\n- CR: rig the follow spot - 31 Jan"
    )
    signed = "Technical Director, Harbour Arts"
    assert read_certain(signed, read_source(notes, f"Thanks.\n{signed}")).contradicted == []


def test_a_word_the_notes_write_only_before_a_number_is_no_name():
    notes = (
        "Birth pool (Room 4) - check-in\nFri 14 Nov\nPresent: Claire Hughes (manager), Ian Vance (estates)\n\n"
        "Actions\n- Claire – comms to community MWs re Rm 4 closure – 12 Dec"
    )
    row = "Claire   Comms to community midwives and antenatal classes on Room 4 closure 12 Dec"
    assert read_certain(row, read_source(notes, row)).contradicted == []


def test_a_line_naming_no_one_a_word_behind_the_owners_line_does_not_hide_its_owner():
    notes = (
        "Ferry berth repair\nMon 3 Mar\nPresent: Fiona Callard (ops), Yusuf Adeyemi (finance)\n\nStatus\n"
        "- Night sailing swap: tell freight customers of the 23:30 move, Ardfern slip\n\nActions\n"
        "Fiona: tell freight customers re 23:30 move (by Wed 12 Mar)"
    )
    row = "| Yusuf | Tell freight customers about the move of the 23:30 sailing | Wed 12 Mar |"
    assert read_certain(row, read_source(notes, row)).contradicted == ["Yusuf Adeyemi where it names Fiona Callard"]
