"""Claim kinds by rules: what the sample claims state, money in several forms, codes, dates and
time spans, counts, and claims that state none of them."""

from __future__ import annotations

import pytest

from groundlab import evaluate
from groundlab.kinds import KINDS, claim_kind, claim_kinds, written_numbers


@pytest.mark.parametrize("text, kinds", [
    # amounts: signs before and after, ISO codes before and after, scales, words, number words
    ("The invoice total is EUR 1,200.50.", ("amount",)),
    ("The invoice total is 1.200,50 \u20ac.", ("amount",)),
    ("The refund is \u00a340.", ("amount",)),
    ("The price is \u00a55000.", ("amount",)),
    ("The fee is 5k USD.", ("amount",)),
    ("The fee is USD500.", ("amount",)),
    ("Refunds above 1,000 CHF need a second approver.", ("amount",)),
    ("The fee is two hundred euros.", ("amount",)),
    ("The price is 30 cents a piece.", ("amount",)),
    ("The surcharge is one euro per order.", ("amount",)),
    ("The budget is $1.2m this year.", ("amount",)),
    # ids: letters-hyphen-digits, fused capitals, long bare numbers, record words, #
    ("Error PRC-112 means a price condition is missing.", ("id",)),
    ("That supplier offers the lowest price for RM-4711.", ("id",)),
    ("The credit note INV-2024-001 was posted.", ("id",)),
    ("Purchase order 4500017311 is blocked.", ("id",)),
    ("PO4500017311 was received in full.", ("id",)),
    ("Customer 10023 has a credit limit.", ("id",)),
    ("Ticket #4711 is still open.", ("id",)),
    ("The invoice no. 5100 was paid.", ("id",)),
    # dates: formats, month names, weekdays, relative words, quarters, years, weeks, times,
    # durations (digits and words) and schedules
    ("It is due on 2024-05-03.", ("date",)),
    ("It is due on 03.05.2024.", ("date",)),
    ("It is due on 3 May.", ("date",)),
    ("It arrives in March 2024.", ("date",)),
    ("The audit starts in September.", ("date",)),
    ("Payment is due on Friday.", ("date",)),
    ("The report is sent on Mondays.", ("date",)),
    ("The goods arrive tomorrow.", ("date",)),
    ("The close happens at month-end.", ("date",)),
    ("Bonuses are paid at the end of the quarter.", ("date",)),
    ("Results come in Q3.", ("date",)),
    ("The budget for FY2024 is set.", ("date",)),
    ("The price changed in 2023.", ("date",)),
    ("The plan holds until mid-2025.", ("date",)),
    ("The shortage is in week 38.", ("date",)),
    ("The cutoff is 17:00.", ("date",)),
    ("The cutoff is 5 pm.", ("date",)),
    ("The refund takes 30 days.", ("date",)),
    ("Most companies set it to two weeks of average demand.", ("date",)),
    ("It usually takes a few days.", ("date",)),
    ("Approval takes a week.", ("date",)),
    ("Billing runs every night.", ("date",)),
    ("Stock is counted weekly.", ("date",)),
    # a day of the month, as an ordinal: a date, not a count
    ("Pay the invoice by the 25th of the month.", ("date",)),
    ("Rent is due on the 1st of each month.", ("date",)),
    ("The report must be in by the 25th.", ("date",)),
    ("Die Zahlung ist bis zum 25. des Monats fällig.", ("date",)),
    ("Die Lieferung kommt am 3. Mai.", ("date",)),
    ("El pago vence el 15 de marzo.", ("date",)),
    # durations in German, French and Spanish, in digits and in words
    ("Rücksendungen sind innerhalb von 14 Tagen möglich.", ("date",)),
    ("Die Freigabe dauert drei Wochen.", ("date",)),
    ("Das Guthaben gilt 30 Tage.", ("date",)),
    ("Die Gutschrift verfällt nach zwölf Monaten.", ("date",)),
    ("Die Erstattung erfolgt innerhalb von fünf Werktagen.", ("date",)),
    ("Le remboursement prend trois jours.", ("date",)),
    ("Le délai est de 30 jours ouvrés.", ("date",)),
    ("El reembolso tarda 15 días hábiles.", ("date",)),
    ("El plazo es de cuatro semanas.", ("date",)),
    # quantities: counts, percentages, units, number words
    ("The supplier delivered 90 of 100 pieces but invoiced all 100.", ("quantity",)),
    ("If the overrun is below 2 percent, the credit analyst releases the order.", ("quantity",)),
    ("The vendor charged 3% more than agreed.", ("quantity",)),
    ("The shipment weighs 12 kg.", ("quantity",)),
    ("The buyer asks for two corrected invoices.", ("quantity",)),
    ("A dozen pallets were damaged.", ("quantity",)),
    ("Twenty-five orders are waiting.", ("quantity",)),
    ("The order of 100 pieces is late.", ("quantity",)),
    ("One pallet was returned.", ("quantity",)),
    # an ordinal that counts, not a day; a foreign number word without a unit of time
    ("It is the 3rd reminder.", ("quantity",)),
    ("On the 3rd reminder the account is locked.", ("quantity",)),
    ("It is the 25th time the order was changed.", ("quantity",)),
    ("Der Kunde bestellt drei Paletten.", ("quantity",)),
    # several kinds: all kept, most severe first
    ("Invoice 5100001234 over EUR 1,200 is due within 5 working days.", ("id", "amount", "date")),
    ("They paid $250 on Monday.", ("amount", "date")),
    ("The supplier will send the credit memo for the 10 missing pieces within 5 working days.", ("date", "quantity")),
    # other: no number, and words that only look like one
    ("Sales may have put a delivery block on the order.", ("other",)),
    ("Safety stock is a buffer quantity that planning keeps for uncertain demand.", ("other",)),
    ("No one approved the change.", ("other",)),
    ("One of the buyers approved it.", ("other",)),
    ("A quarter of the orders are late.", ("other",)),
    ("The soldiers march on.", ("other",)),
    ("Jan approved the order.", ("other",)),
    ("The payment run pays every invoice that is due.", ("other",)),
    ("", ("other",)),
])
def test_kinds_of_claims(text, kinds):
    assert claim_kinds(text) == kinds
    assert claim_kind(text) == kinds[0]


def test_kinds_are_ordered_by_severity_and_end_with_other():
    assert KINDS == ("id", "amount", "date", "quantity", "other")


def test_written_numbers_are_found_with_their_extent():
    text = "Two hundred and fifty invoices and a dozen credit memos, but no one knew."
    assert [text[s:e] for s, e in written_numbers(text)] == ["Two hundred and fifty", "a dozen"]


def test_sample_claims_get_their_kinds(sample_cases):
    claims = evaluate(sample_cases).claims.set_index(["case_id", "claim"])
    assert claims.loc[("c02", 1), "kind"] == "quantity"  # "80 of 100 pieces"
    assert claims.loc[("c06", 1), "kind"] == "date"  # "... within 5 working days"
    assert claims.loc[("c06", 1), "kinds"] == ("date", "quantity")  # and "the 10 missing pieces"
    assert claims.loc[("c11", 1), "kind"] == "id"  # RM-4711
    assert claims.loc[("c10", 2), "kind"] == "date"  # "two weeks of average demand"
    assert claims.loc[("c03", 1), "kind"] == "quantity"  # "below 2 percent"
    assert claims.loc[("c07", 1), "kind"] == "other"
    assert set(claims["kind"]) <= set(KINDS)
    assert all(kinds[0] == kind for kinds, kind in zip(claims["kinds"], claims["kind"]))
