"""Generate N synthetic help-desk cases over the sample passages, deterministically (same N and
seed, same file): the workload of real-looking cases.

Unlike ``make_cases.py`` (whose questions are passage sentences that repeat), every case asks a
question of its own, about an order, invoice, supplier, customer or material whose numbers and
names vary ("Why is sales order 2408 blocked for delivery?"), retrieves the passages of its topic
(and sometimes one more), and answers with about three claims, each citing a passage: sentences
of the passages, or their rule applied to the case ("Sales order 2408 is blocked because the
customer's credit exposure is above the credit limit."), some altered the way assistants go wrong
(a changed number, an added negation, a detail no passage gives, a citation of the wrong passage),
or an abstention. Some 12% of the questions ask what no passage says. Every case carries people's
labels (``labels``: one a claim, what a person reading the passages found, with a small share of
disagreement), as a labeled set does.

    python bench/make_helpdesk.py 100000 bench/out/helpdesk_100000.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "data" / "notes.jsonl"

CUSTOMERS = ["Orion", "Vega Foods", "Nordlicht GmbH", "Atlas Retail", "Helix Pharma", "Baltic Steel", "Kestrel",
             "Mistral Logistics", "Polar Tools", "Quantum Labs", "Ridge Farms", "Sierra Textiles", "Tundra Energy",
             "Umbra Media", "Vireo Clinics", "Willow Homes"]
SUPPLIERS = ["Acme Components", "Borealis Metals", "Cobalt Plastics", "Delta Fasteners", "Ember Chemicals",
             "Fjord Packaging", "Granite Castings", "Harbor Electronics", "Iris Optics", "Juniper Textiles"]
PLANTS = ["1000", "1100", "1200", "2000", "2100", "3000"]

# Each topic: the passages that answer it (the first one the main), questions (fields in braces),
# and claims, each ``(text, passage, label)``: the label a person gives it. A claim's text may use
# the question's fields. ``ask`` questions about what the passages do not say (answerable false).
TOPICS = [
    {"passages": ["D01"],
     "questions": ["Why is sales order {order} blocked for delivery?",
                   "Sales order {order} for {customer} is on credit hold. Why?",
                   "Customer {customer}'s order {order} is {over} percent over the credit limit. Who can release it?",
                   "Who can release order {order}? It is {over} percent above the credit limit."],
     "claims": [("Sales order {order} is blocked because the customer's credit exposure is above the credit limit.",
                 "D01", "supported"),
                ("A sales order is blocked for delivery when the customer's credit exposure is above the credit limit.",
                 "D01", "supported"),
                ("The exposure of {customer} includes open orders, deliveries and unpaid invoices.", "D01",
                 "supported"),
                ("Exposure includes open orders, deliveries and unpaid invoices.", "D01", "supported"),
                ("The credit analyst reviews the open items of order {order}.", "D01", "supported"),
                ("{release}", "D01", "supported")],
     "ask": ["What is the credit limit of customer {customer}?",
             "When was the credit limit of {customer} last raised?"]},
    {"passages": ["D02", "D05"],
     "questions": ["Why was no delivery created for order {order}?",
                   "Order {order} for {customer} has not shipped yet. What is holding it?",
                   "How do I get order {order} delivered?"],
     "claims": [("Sales may have put a delivery block on order {order}, for example while export papers are missing.",
                 "D02", "supported"),
                ("Sales can put a delivery block on an order because the customer asked to wait.", "D02", "supported"),
                ("Once the reason is cleared, remove the delivery block in order {order}.", "D02", "supported"),
                ("The delivery is created in the next delivery run.", "D02", "supported"),
                ("Order {order} may also be incomplete when mandatory data such as the payment terms is missing.",
                 "D05", "supported"),
                ("Incomplete orders cannot be delivered or billed.", "D05", "supported")],
     "ask": ["When does the next delivery run start for plant {plant}?",
             "Which carrier ships order {order}?"]},
    {"passages": ["D03"],
     "questions": ["Why is there no invoice for delivered order {order}?",
                   "Order {order} was delivered to {customer} but not billed. Why?"],
     "claims": [("A billing block stops the invoice for delivered order {order}.", "D03", "supported"),
                ("A billing block stops the invoice for a delivered order.", "D03", "supported"),
                ("A price or discount on order {order} usually has to be checked first.", "D03", "supported"),
                ("After the pricing review, release the billing block.", "D03", "supported"),
                ("Release the billing block on order {order} after the pricing review.", "D03", "supported")],
     "ask": ["Who approved the discount on order {order}?"]},
    {"passages": ["D04", "D03"],
     "questions": ["What does error PRC-112 on order {order} mean?",
                   "Item {item} of order {order} shows error PRC-112. What do I do?"],
     "claims": [("Error PRC-112 means a mandatory price condition is missing on the order item.", "D04", "supported"),
                ("A mandatory price condition is missing on item {item} of order {order}.", "D04", "supported"),
                ("Maintain the condition record for the customer and material.", "D04", "supported"),
                ("Then redetermine prices on order {order}.", "D04", "supported"),
                ("A billing block may also stop the invoice until the pricing review.", "D03", "supported")],
     "ask": ["What does error PRC-{err} mean?"]},
    {"passages": ["D05", "D02"],
     "questions": ["Order {order} shows as incomplete. Can it be delivered?",
                   "Why can order {order} not be billed?"],
     "claims": [("Incomplete orders cannot be delivered or billed.", "D05", "supported"),
                ("Order {order} is incomplete because mandatory data is missing, such as the payment terms.", "D05",
                 "supported"),
                ("An order is incomplete when mandatory data such as the ship-to party is missing.", "D05",
                 "supported"),
                ("Open the incompletion log on order {order} to see which fields are missing.", "D05", "supported"),
                ("Fill the missing fields that the incompletion log shows.", "D05", "supported")],
     "ask": ["Who entered order {order}?"]},
    {"passages": ["D06", "D08", "D09"],
     "questions": ["Why is invoice {invoice} from {supplier} blocked for payment?",
                   "Invoice {invoice} for purchase order {po} is blocked. What happened?",
                   "The vendor {supplier} billed more than agreed on purchase order {po}. What happens next?"],
     "claims": [("Each supplier invoice is checked against the purchase order and the goods receipt.", "D06",
                 "supported"),
                ("A price variance above the tolerance blocks invoice {invoice} for payment.", "D06", "supported"),
                ("A quantity or price variance above the tolerance blocks the invoice for payment.", "D06",
                 "supported"),
                ("The buyer contacts {supplier} and asks for a corrected invoice or a credit memo.", "D08",
                 "supported"),
                ("The buyer asks the vendor for a corrected invoice or a credit memo.", "D08", "supported"),
                ("When the variance is resolved, the accounts payable clerk releases invoice {invoice}.", "D09",
                 "supported"),
                ("When the variance is resolved, the accounts payable clerk releases the blocked invoice.", "D09",
                 "supported")],
     "ask": ["What tolerance applies to supplier {supplier}?",
             "When did {supplier} send invoice {invoice}?"]},
    {"passages": ["D07", "D06"],
     "questions": ["Why is the invoice for purchase order 4500017311 blocked?",
                   "What happened with the quantity variance on purchase order 4500017311?"],
     "claims": [("The supplier delivered 90 of 100 pieces but invoiced all 100.", "D07", "supported"),
                ("The invoice was blocked for payment.", "D07", "supported"),
                ("Accounts payable asked the supplier for a credit memo for the 10 missing pieces.", "D07",
                 "supported"),
                ("A quantity variance above the tolerance blocks the invoice for payment.", "D06", "supported")],
     "ask": ["When will the credit memo for purchase order 4500017311 arrive?"]},
    {"passages": ["D10", "D09"],
     "questions": ["When will invoice {invoice} from {supplier} be paid?",
                   "Invoice {invoice} was released on day {day}. When is it paid?"],
     "claims": [("The due date of invoice {invoice} is calculated from the baseline date and the payment terms.",
                 "D10", "supported"),
                ("The due date of an invoice is calculated from the baseline date and the payment terms.", "D10",
                 "supported"),
                ("The payment run pays every invoice that is due and not blocked.", "D10", "supported"),
                ("Released invoices are picked up by the next payment run if they are due.", "D09", "supported"),
                ("Invoice {invoice} is picked up by the next payment run once it is due.", "D09", "supported")],
     "ask": ["On which day does the payment run for company code {plant} start?"]},
    {"passages": ["D12", "D13"],
     "questions": ["The planning run for plant {plant} shows exception messages. What should I do?",
                   "Who reviews the exceptions of the planning run in plant {plant}?"],
     "claims": [("The planning run flags missing parts, late receipts and orders to reschedule.", "D12", "supported"),
                ("Planners review the exceptions every morning, starting with critical components.", "D12",
                 "supported"),
                ("Planners review the exceptions of plant {plant} every morning.", "D12", "supported"),
                ("Start with the critical components.", "D12", "supported")],
     "ask": ["How many exception messages did plant {plant} have last week?"]},
    {"passages": ["D13", "D15"],
     "questions": ["Why is component RM-4711 short in week 38?",
                   "What was done about the shortage of component RM-4711 for production order {order}?"],
     "claims": [("The planning run showed a shortage of component RM-4711 for production in week 38.", "D13",
                 "supported"),
                ("The planner moved the production order forward and expedited the supplier.", "D13", "supported"),
                ("The planner expedited the supplier of RM-4711.", "D13", "supported"),
                ("When available stock falls below safety stock, the planning run creates a planned order.", "D15",
                 "supported")],
     "ask": ["Which supplier is cheapest for component RM-{material}?"]},
    {"passages": ["D15"],
     "questions": ["Why did the planning run create planned order {order} for material RM-{material}?",
                   "What is safety stock for material RM-{material}?"],
     "claims": [("Safety stock is a buffer quantity that planning keeps for uncertain demand.", "D15", "supported"),
                ("Available stock of RM-{material} fell below safety stock, so the planning run created a planned "
                 "order.", "D15", "supported"),
                ("When available stock falls below safety stock, the planning run creates a planned order.", "D15",
                 "supported"),
                ("Planning keeps safety stock of RM-{material} as a buffer for uncertain demand.", "D15", "supported")],
     "ask": ["How much safety stock does material RM-{material} have?"]},
    {"passages": ["D17"],
     "questions": ["Who must approve the change to the bank details of customer {customer}?",
                   "I changed the bank details of {customer} (customer {custno}). Why is it pending?"],
     "claims": [("A change to the bank details of {customer} needs a second person to approve it.", "D17",
                 "supported"),
                ("A change to a customer's bank details needs a second person to approve it.", "D17", "supported"),
                ("This control reduces the risk of fraud in refunds and credit memos.", "D17", "supported")],
     "ask": ["Which bank does customer {customer} use?"]},
]

# Details no passage gives, said about the case.
INVENTED = ["The warehouse releases blocked orders every Friday afternoon.",
            "Most companies review this every quarter.",
            "The plant manager of plant {plant} has to sign a waiver first.",
            "A reminder is sent to {customer} after three days.",
            "This usually takes two working days for order {order}.",
            "{supplier} offers the lowest price for this item."]
ABSTAIN = ["I can't find that in the retrieved notes.",
           "I couldn't find the answer in the documents.",
           "The documents don't say.",
           "I don't know; the retrieved notes do not cover that."]
NEGATED = ((" is ", " is not "), (" are ", " are not "), (" can ", " cannot "), (" needs ", " does not need "),
           (" reviews ", " never reviews "))


def _fields(rng: random.Random) -> dict:
    over = rng.choice((0.5, 1, 1.5, 1.8, 2.5, 3, 4.2, 6))
    return {
        "order": str(rng.randint(1000, 99999)), "po": str(rng.randint(4500000000, 4500999999)),
        "invoice": str(rng.randint(5100000000, 5199999999)), "item": str(rng.choice((10, 20, 30, 40, 50))),
        "customer": rng.choice(CUSTOMERS), "custno": str(rng.randint(10000, 99999)),
        "supplier": rng.choice(SUPPLIERS), "plant": rng.choice(PLANTS), "material": str(rng.randint(1000, 9999)),
        "err": str(rng.randint(100, 999)), "day": str(rng.randint(1, 28)), "over": f"{over:g}",
        "release": (f"Below 2 percent, the credit analyst releases the order; at {over:g} percent the credit "
                    "manager approves the release." if over > 2 else
                    f"At {over:g} percent, the credit analyst can release the order."),
    }


def _named(template: str) -> set:
    return set(re.findall(r"{(\w+)}", template))


def _alter(text: str, rng: random.Random):
    """A claim as assistants get it wrong: ``(text, label)``, or ``None`` when it cannot be so altered."""
    roll = rng.random()
    if roll < 0.5:
        numbers = list(re.finditer(r"\b\d+(?:\.\d+)?\b", text))
        if not numbers:
            return None
        m = rng.choice(numbers)
        value = m.group()
        changed = str(int(float(value)) + rng.choice((1, 3, 7))) if "." not in value else f"{float(value) + 1:g}"
        return text[:m.start()] + changed + text[m.end():], "contradicted"
    for old, new in rng.sample(NEGATED, len(NEGATED)):
        if old in text:
            return text.replace(old, new, 1), "contradicted"
    return None


def make(n: int, seed: int = 11, restate: float = 1.0):
    """The cases; ``restate``: the share of the claims that name the case's own order, invoice or
    customer kept among those an answer may give (1: all of them; 0: answers only in the passages'
    general words, so that only the questions are new)."""
    rng = random.Random(seed)
    notes = [json.loads(line) for line in NOTES.read_text(encoding="utf-8").splitlines() if line.strip()]
    ids = [p["id"] for p in notes]
    for k in range(n):
        topic = rng.choice(TOPICS)
        f = _fields(rng)
        retrieved = list(topic["passages"])
        if rng.random() < 0.4:  # one more passage the search found
            extra = rng.choice([i for i in ids if i not in retrieved])
            retrieved.insert(rng.randint(0, len(retrieved)), extra)
        answerable = rng.random() > 0.12
        template = rng.choice(topic["questions"] if answerable else topic["ask"])
        question = template.format(**f)
        named = _named(template) | ({"release"} if "over" in _named(template) else set())
        # an answer speaks of what the question names: its order, invoice or customer
        claims = [c for c in topic["claims"] if _named(c[0]) <= named]
        if restate < 1:
            claims = [c for c in claims if not _named(c[0]) or rng.random() < restate] or claims
        parts, labels = [], []
        if (not answerable and rng.random() < 0.7) or rng.random() < 0.04:
            parts.append(rng.choice(ABSTAIN))
        else:
            count = rng.choice((2, 3, 3, 3, 4)) if answerable else rng.choice((1, 2))
            chosen = rng.sample(claims, min(count, len(claims)))
            for text, pid, label in chosen:
                text = text.format(**f)
                roll = rng.random()
                if roll < 0.10:
                    altered = _alter(text, rng)
                    if altered is not None:
                        text, label = altered
                elif roll < 0.16:
                    text, label = rng.choice(INVENTED).format(**f), "unsupported"
                elif roll < 0.20:
                    pid = rng.choice(ids)  # a citation of the wrong passage: the claim itself stays true
                parts.append(f"{text[:-1]} [{pid}].")
                labels.append(label)
            if rng.random() < 0.05 and labels:  # a person who reads one claim otherwise than the others would
                j = rng.randrange(len(labels))
                labels[j] = "unsupported" if labels[j] == "supported" else "supported"
        yield {"id": f"h{k:07d}", "question": question, "retrieved": retrieved, "answerable": answerable,
               "answer": " ".join(parts), "labels": labels}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--restate", type=float, default=1.0,
                    help="share of the claims naming the case's own order or invoice kept (default 1: all)")
    args = ap.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for case in make(args.n, args.seed, args.restate):
            fh.write(json.dumps(case) + "\n")
    tmp.replace(args.out)
    print(f"wrote {args.n} help-desk cases to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
