package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's blind scenarios: four more held-out sessions, written
// without reading cairn's extraction code (internal/checkpoint,
// transcript, continuity, ledger, outcome, handoff) nor any other
// scenario's facts, only the bench's types and helpers. Their first run on
// main is the blind measurement; nothing in cairn was tuned on them, and
// their checks were only corrected where a check could not have matched a
// faithful restore.
//
// Each is a toolchain no other scenario uses (Django with a data
// migration, .NET with Testcontainers, Helm/Kubernetes, a React frontend
// with Playwright and axe) in a voice of its own (a chatty user, a
// non-native speaker, a terse lowercase one, one who writes lists), and
// each plants a decision the user reverses. One compacts twice (auto, then
// a manual /compact), one inside a turn, one plants five secrets of
// realistic shape, one compacts by hand with instructions.
//
// They run only in the report (TestRecallReport), after the held-out
// ones, and are marked "held-out, blind" in its shape column.

// blindScenarios are the blind scenarios the recall report runs.
func blindScenarios() []scenario {
	return []scenario{
		blindDjangoTwice(),
		blindDotnetInTurn(),
		blindHelmSecrets(),
		blindA11yLists(),
	}
}

// blindDjangoTwice splits a name column with a Django data migration for
// a chatty user: a measurement of the data, an IntegrityError fixed by a
// default, a decision the user reverses two turns later, an open item
// said three turns before an automatic compaction; after it, a test left
// failing on purpose in a module the user forbids, then a manual /compact.
func blindDjangoTwice() scenario {
	managePy := `#!/bin/sh
# stand-in for Django's manage.py: prints what the scenario needs
case "$*" in
  "makemigrations contacts")
    echo "Migrations for 'contacts':"
    echo "  contacts/migrations/0014_customer_first_last_name.py"
    echo "    - Add field first_name to customer"
    echo "    - Add field last_name to customer"
    ;;
  "split_names_report --settings=crm.settings.snapshot")
    echo "customers scanned:        48213"
    echo "two or more tokens:       45990"
    echo "single token:              1907"
    echo "comma form 'Last, First':   312"
    echo "over 150 chars:               4"
    ;;
  "migrate contacts")
    echo "Operations to perform:"
    echo "  Apply all migrations: contacts"
    echo "Running migrations:"
    echo "  Applying contacts.0014_customer_first_last_name... OK"
    if grep -q 'last_name = models.CharField(max_length=150, blank=True, default="")' contacts/models.py; then
      echo "  Applying contacts.0015_split_full_name... OK"
      exit 0
    fi
    echo "  Applying contacts.0015_split_full_name..." 
    echo 'django.db.utils.IntegrityError: null value in column "last_name" of relation "contacts_customer" violates not-null constraint' >&2
    echo 'DETAIL:  Failing row contains (10442, Cher, null, null, 2019-03-02).' >&2
    exit 1
    ;;
  "test contacts.tests.test_split_names")
    echo "Creating test database for alias 'default'..."
    echo "........."
    echo "----------------------------------------------------------------------"
    echo "Ran 9 tests in 0.412s"
    echo
    echo "OK"
    ;;
  "test contacts.tests.test_exports")
    echo "....."
    echo "----------------------------------------------------------------------"
    echo "Ran 5 tests in 0.128s"
    echo
    echo "OK"
    ;;
  "test contacts")
    echo "Creating test database for alias 'default'..."
    echo "..................F............"
    echo "======================================================================"
    echo "FAIL: test_merge_duplicates (contacts.tests.test_dedupe.DedupeTests.test_merge_duplicates)"
    echo "----------------------------------------------------------------------"
    echo "Traceback (most recent call last):"
    echo '  File "contacts/tests/test_dedupe.py", line 58, in test_merge_duplicates'
    echo "    self.assertEqual(merged.display_name, 'Ann Lee')"
    echo "AssertionError: 'Ann' != 'Ann Lee'"
    echo "----------------------------------------------------------------------"
    echo "Ran 31 tests in 1.904s"
    echo
    echo "FAILED (failures=1)"
    exit 1
    ;;
  *) echo "Unknown command: $*" >&2; exit 2 ;;
esac
`
	return scenario{
		Name:  "blind-django-twice",
		Shape: "held-out, blind; Django data migration, auto then manual; chatty user reverses a decision, test left failing in a forbidden module",
		Files: map[string]string{
			"manage.py": managePy,
			"contacts/models.py": `from django.db import models


class Customer(models.Model):
    full_name = models.CharField(max_length=300)
    email = models.EmailField(blank=True)
    created = models.DateField(auto_now_add=True)

    @property
    def display_name(self):
        return self.full_name
`,
			"contacts/exports.py": `import csv

HEADER = ["id", "full_name", "email"]


def write_customers(out, customers):
    w = csv.writer(out)
    w.writerow(HEADER)
    for c in customers:
        w.writerow([c.id, c.full_name, c.email])
`,
			"contacts/dedupe.py": `def merge(a, b):
    # being rewritten
    return a
`,
			"contacts/migrations/0013_customer_email_blank.py": "# earlier migration\n",
		},
		AllowedTools:   []string{"Bash(./manage.py:*)", "Bash(git diff:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "manual"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			mig := p("contacts/migrations/0015_split_full_name.py")
			migV1 := `from django.db import migrations


def split(apps, schema_editor):
    Customer = apps.get_model("contacts", "Customer")
    for c in Customer.objects.iterator(chunk_size=2000):
        name = c.full_name.strip()
        if "," in name:
            last, _, first = name.partition(",")
        else:
            first, _, last = name.rpartition(" ")
        if not first and not last:
            last = name
        c.first_name, c.last_name = first.strip(), last.strip()
        c.save(update_fields=["first_name", "last_name"])


def join(apps, schema_editor):
    Customer = apps.get_model("contacts", "Customer")
    for c in Customer.objects.iterator(chunk_size=2000):
        c.full_name = f"{c.first_name} {c.last_name}".strip()
        c.save(update_fields=["full_name"])


class Migration(migrations.Migration):
    dependencies = [("contacts", "0014_customer_first_last_name")]
    operations = [migrations.RunPython(split, reverse_code=join)]
`
			before = []turn{
				{Prompt: "Hi! So today's thing is CRM-2318, finally :) Marketing wants first and last name as separate columns on Customer " +
					"instead of the one full_name field, because the new mailing tool insists on it. I think it's a schema migration plus " +
					"a data migration to fill them. Could you start by having a look at the model and making the schema migration? " +
					"Just ./manage.py, the venv is already active.", Replies: []fakeapi.Reply{
					reply("", 9000, read("toolu_dj_read_models", p("contacts/models.py"))),
					reply("", 10000, edit("toolu_dj_edit_models", p("contacts/models.py"),
						"    full_name = models.CharField(max_length=300)\n",
						"    full_name = models.CharField(max_length=300)\n    first_name = models.CharField(max_length=150, blank=True)\n    last_name = models.CharField(max_length=150)\n")),
					reply("", 11000, bash("toolu_dj_makemig", "./manage.py makemigrations contacts", "Create the schema migration")),
					reply("Added `first_name` and `last_name` to `Customer` in `contacts/models.py` and generated "+
						"`contacts/migrations/0014_customer_first_last_name.py` (two AddField operations). `full_name` stays for now; "+
						"the data migration that fills the new columns comes next.", 12000),
				}},
				{Prompt: "Nice, thanks! Before you write the data migration, I'm a bit scared of what's actually in that column, people type " +
					"all sorts of things. Jonas wrote a split_names_report command last year, it runs against the anonymised snapshot " +
					"(settings crm.settings.snapshot). Can you run it and tell me how bad it is?", Replies: []fakeapi.Reply{
					reply("", 13000, bash("toolu_dj_report", "./manage.py split_names_report --settings=crm.settings.snapshot", "Profile the names in the snapshot")),
					reply("Here is the snapshot: 48,213 customers. 45,990 have two or more tokens, 1,907 are a single token "+
						"(\"Cher\", company names typed into the name field), 312 are in the comma form `Last, First`, and 4 are over "+
						"150 characters, which would not fit the new columns.\n\nFor parsing I would reach for the `nameparser` package "+
						"(HumanName), which handles titles and suffixes.", 14000),
				}},
				{Prompt: "Hmm, please no new dependencies, getting a package approved here takes weeks and it's only a one-off. " +
					"A plain split is fine for us. Oh and one more thing I forgot, Ops insists every migration has to be reversible, " +
					"they roll back with migrate all the time, so give it a reverse_code please. Go ahead and write it!", Replies: []fakeapi.Reply{
					reply("", 16000, write("toolu_dj_write_mig", mig, migV1)),
					reply("", 17000, bash("toolu_dj_migrate1", "./manage.py migrate contacts", "Apply both migrations locally")),
					reply("Wrote `contacts/migrations/0015_split_full_name.py`: `RunPython(split, reverse_code=join)`, plain "+
						"`str.partition`, no new package. Two decisions in it:\n\n- the 312 comma names are read as `Last, First`, "+
						"because that is how the old Salesforce import wrote them;\n- a single-token name goes into `last_name`, "+
						"because dedupe keys on the last name.\n\nBut `./manage.py migrate contacts` fails: 0014 applies, then 0015 "+
						"raises `django.db.utils.IntegrityError: null value in column \"last_name\" ... violates not-null constraint` "+
						"on row 10442, because 0014 added `last_name` as NOT NULL without a default.", 18000),
				}},
				{Prompt: "ouch. what do you suggest?", Replies: []fakeapi.Reply{
					reply("", 19000, edit("toolu_dj_edit_default", p("contacts/models.py"),
						"    last_name = models.CharField(max_length=150)\n",
						"    last_name = models.CharField(max_length=150, blank=True, default=\"\")\n")),
					reply("", 20000, bash("toolu_dj_migrate2", "./manage.py migrate contacts", "Apply the migrations again")),
					reply("", 21000, bash("toolu_dj_test1", "./manage.py test contacts.tests.test_split_names", "Run the split tests")),
					reply("Fixed: `last_name` now has `blank=True, default=\"\"` in `contacts/models.py`, so the "+
						"column is never null; `./manage.py migrate contacts` applies 0014 and 0015 cleanly now, and "+
						"`./manage.py test contacts.tests.test_split_names` ran 9 tests, OK.\n\nStill open after this: "+
						"`contacts/exports.py` writes `full_name` in the CSV export header; it has to switch to the two new "+
						"columns, which I'll do once the migration itself is settled.", 22000),
				}},
				{Prompt: "Wait, I just talked to Priya from marketing and the single-word names have to go into first_name, not last_name. " +
					"The mailing templates all start with \"Dear {first_name}\" and for \"Cher\" they'd print \"Dear ,\" haha. " +
					"So last_name stays empty for those. Sorry for the back and forth!", Replies: []fakeapi.Reply{
					reply("", 23000, read("toolu_dj_read_mig", mig)),
					reply("", 24000, edit("toolu_dj_edit_single", mig,
						"        if not first and not last:\n            last = name\n",
						"        if not first:\n            # a single token is a first name: the mailing greets by first_name\n            first, last = last, \"\"\n")),
					reply("", 25000, bash("toolu_dj_test2", "./manage.py test contacts.tests.test_split_names", "Run the split tests again")),
					reply("No problem! Changed in 0015: a single-token name now goes into `first_name` and `last_name` stays "+
						"empty. The split tests still pass (9 tests, OK).", 26000),
				}},
				{Prompt: "Perfect!! I'm going to grab some lunch now, back in a bit, then we continue :)", Replies: []fakeapi.Reply{
					full("Enjoy your lunch!"),
				}},
				// The client compacts on its own before this turn's first request.
				{Prompt: "I'm back, full and happy. Let's keep going, what's next?", Replies: []fakeapi.Reply{
					reply("", 9000, bash("toolu_dj_test_all", "./manage.py test contacts", "Run the whole contacts test suite")),
					reply("The whole app suite: `./manage.py test contacts` ran 31 tests, 1 failure: "+
						"`test_merge_duplicates` (contacts.tests.test_dedupe.DedupeTests), `AssertionError: 'Ann' != 'Ann Lee'` "+
						"at test_dedupe.py line 58. `contacts/dedupe.py` merges on `display_name`, which still reads `full_name`.", 10000),
				}},
				{Prompt: "Ugh, that one is Marta's, she's rewriting the dedupe in CRM-2340. Please don't touch contacts/dedupe.py at all, " +
					"leave that test failing, she knows. Could you do the CSV export instead?", Replies: []fakeapi.Reply{
					reply("", 11000, read("toolu_dj_read_exports", p("contacts/exports.py"))),
					reply("", 12000, edit("toolu_dj_edit_exports", p("contacts/exports.py"),
						"HEADER = [\"id\", \"full_name\", \"email\"]\n",
						"HEADER = [\"id\", \"first_name\", \"last_name\", \"email\"]\n")),
					reply("", 13000, edit("toolu_dj_edit_exports_row", p("contacts/exports.py"),
						"        w.writerow([c.id, c.full_name, c.email])\n",
						"        w.writerow([c.id, c.first_name, c.last_name, c.email])\n")),
					reply("", 14000, bash("toolu_dj_test_exports", "./manage.py test contacts.tests.test_exports", "Run the export tests")),
					reply("Done: `contacts/exports.py` writes `first_name` and `last_name` instead of `full_name`; "+
						"`./manage.py test contacts.tests.test_exports` ran 5 tests, OK. I left `contacts/dedupe.py` and its failing "+
						"test alone.", 15000),
				}},
				{Prompt: "/compact"},
			}
			after = []turn{
				{Prompt: "ok, where are we at with all this?", Replies: []fakeapi.Reply{
					reply("Picking up from the state above.", 8000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket CRM-2318", "CRM-2318"),
			lit("file changed: contacts/models.py", "contacts/models.py"),
			lit("file changed: the data migration 0015", "0015_split_full_name"),
			rx("failure fixed: the IntegrityError on last_name, by a default",
				`IntegrityError|(?i)not[- ]null|null value`, `default\s*=\s*(""|'')|(?i)empty[- ]string default|blank=True`),
			rx("command: the split tests pass", `test_split_names[^\n]{0,200}((?i)\bok\b|pass|exit 0|9 tests)`),
			rx("decision: comma names read as Last, First, because of the Salesforce import", `(?i)last, first|\bcomma\b`, `(?i)salesforce`),
			rx("decision reversed by the user: a single-token name goes into first_name",
				`(?i)(single|one)[- ]?(token|word|part)[^\n]{0,120}first_name|first_name[^\n]{0,120}(single|one)[- ]?(token|word|part)`),
			rx("constraint: no new dependencies (nameparser rejected)", `(?i)(new|no|add(ing)?) (dependenc|package)|nameparser`),
			rx("constraint: every migration reversible", `reverse_code|(?i)reversible`),
			rx("finding: 48,213 customers, 1,907 single-token names", `48[,.]?213`, `1[,.]?907`),
			lit("open thread: the CSV export in contacts/exports.py", "exports.py").until(1),
			lit("file changed: contacts/exports.py", "contacts/exports.py").from(2),
			rx("failing test left alone: test_merge_duplicates", `test_merge_duplicates`).from(2),
			rx("constraint: don't touch contacts/dedupe.py (Marta's, CRM-2340)", `(^|[^_])dedupe\.py`,
				`(?i)marta|CRM-2340|don.?t (touch|edit|change|modify)|do not (touch|edit|change|modify)|hands off|untouched|leave[^\n]{0,30}alone`).from(2),
		},
	}
}

// blindDotnetInTurn hunts a flaky Testcontainers integration test in a
// .NET service for a non-native English speaker; the agent reports in
// lists. A measured flake rate, the cause and a decision not to raise the
// timeout, a build error fixed by a using directive, a decision the user
// reverses for a reason of the CI machine, a time budget and its
// measurement, a failing test in another ticket left alone, and an open
// item; the compaction comes inside the last turn, between the 20-run
// check's call and its result.
func blindDotnetInTurn() scenario {
	const fixture = "tests/Orders.IntegrationTests/RabbitMqFixture.cs"
	dotnet := `#!/bin/sh
# stand-in for the dotnet CLI: what the scenario needs, from the files' state
f=tests/Orders.IntegrationTests/RabbitMqFixture.cs
fixed() { grep -q 'UntilMessageIsLogged' $f && grep -q 'using DotNet.Testcontainers.Builders;' $f; }
case "$1" in
build)
  echo "  Determining projects to restore..."
  echo "  All projects are up-to-date for restore."
  if grep -q 'UntilMessageIsLogged' $f && ! grep -q 'using DotNet.Testcontainers.Builders;' $f; then
    echo "$PWD/$f(12,31): error CS0103: The name 'Wait' does not exist in the current context [$PWD/tests/Orders.IntegrationTests/Orders.IntegrationTests.csproj]"
    echo
    echo "Build FAILED."
    echo "    0 Warning(s)"
    echo "    1 Error(s)"
    exit 1
  fi
  echo "  Orders.Api -> $PWD/src/Orders.Api/bin/Debug/net8.0/Orders.Api.dll"
  echo "  Orders.IntegrationTests -> $PWD/tests/Orders.IntegrationTests/bin/Debug/net8.0/Orders.IntegrationTests.dll"
  echo
  echo "Build succeeded."
  echo "    0 Warning(s)"
  echo "    0 Error(s)"
  echo
  echo "Time Elapsed 00:00:07.81"
  ;;
test)
  case "$*" in
  *Category=Payments*)
    echo "Starting test execution, please wait..."
    echo "  Failed Orders.IntegrationTests.RefundFlowTests.Refund_is_idempotent [2 s]"
    echo "  Error Message:"
    echo '   Npgsql.PostgresException : 23505: duplicate key value violates unique constraint "ix_refunds_order_id"'
    echo "  Stack Trace:"
    echo "     at Orders.Api.Refunds.RefundService.CreateAsync(Guid orderId) in src/Orders.Api/Refunds/RefundService.cs:line 77"
    echo
    echo "Failed!  - Failed:     1, Passed:     8, Skipped:     0, Total:     9, Duration: 31 s - Orders.IntegrationTests.dll (net8.0)"
    exit 1
    ;;
  *Category=Messaging*)
    n=$(cat "${TMPDIR:-/tmp}/dotnet-runs" 2>/dev/null || echo 0)
    n=$((n+1))
    echo $n > "${TMPDIR:-/tmp}/dotnet-runs"
    echo "Starting test execution, please wait..."
    if fixed; then
      echo "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 1 m 24 s - Orders.IntegrationTests.dll (net8.0)"
      exit 0
    fi
    case $((n % 5)) in
    1|3|4)
      echo "  Failed Orders.IntegrationTests.OrderEventsConsumerTests.Publishes_OrderPlaced_once [10 s]"
      echo "  Error Message:"
      echo "   System.TimeoutException : Consumer did not receive OrderPlaced within 00:00:10"
      echo "  Stack Trace:"
      echo "     at Orders.IntegrationTests.OrderEventsConsumerTests.Publishes_OrderPlaced_once() in tests/Orders.IntegrationTests/OrderEventsConsumerTests.cs:line 41"
      echo
      echo "Failed!  - Failed:     1, Passed:    11, Skipped:     0, Total:    12, Duration: 1 m 9 s - Orders.IntegrationTests.dll (net8.0)"
      exit 1
      ;;
    esac
    echo "Passed!  - Failed:     0, Passed:    12, Skipped:     0, Total:    12, Duration: 1 m 6 s - Orders.IntegrationTests.dll (net8.0)"
    ;;
  esac
  ;;
*) echo "dotnet: unknown command $1" >&2; exit 1 ;;
esac
`
	return scenario{
		Name:  "blind-dotnet-in-turn",
		Shape: "held-out, blind; .NET/xUnit + Testcontainers, compaction inside a turn; non-native user, flaky test measured, reversed fixture decision",
		Files: map[string]string{
			fixture: `using Testcontainers.RabbitMq;
using Xunit;

namespace Orders.IntegrationTests;

public sealed class RabbitMqFixture : IAsyncLifetime
{
    public RabbitMqContainer Container { get; } = new RabbitMqBuilder()
        .WithImage("rabbitmq:3.13-management")
        .Build();

    public Task InitializeAsync() => Container.StartAsync();

    public Task DisposeAsync() => Container.DisposeAsync().AsTask();
}
`,
			"tests/Orders.IntegrationTests/OrderEventsConsumerTests.cs": `using Xunit;

namespace Orders.IntegrationTests;

[Trait("Category", "Messaging")]
public class OrderEventsConsumerTests : IClassFixture<RabbitMqFixture>
{
    private readonly RabbitMqFixture _rabbit;

    public OrderEventsConsumerTests(RabbitMqFixture rabbit) => _rabbit = rabbit;

    [Fact]
    public async Task Publishes_OrderPlaced_once()
    {
        await using var app = new OrdersApp(_rabbit.Container.GetConnectionString());
        await app.PlaceOrderAsync(Sample.Order());
        var evt = await app.Consumer.NextAsync<OrderPlaced>(TimeSpan.FromSeconds(10));
        Assert.Equal(Sample.Order().Id, evt.OrderId);
    }
}
`,
			"docker-compose.ci.yml": "# owned by the platform team\nservices:\n  ci:\n    image: mcr.microsoft.com/dotnet/sdk:8.0\n    mem_limit: 4g\n",
			"docs/testing.md":       "# Testing\n\n## Known flaky tests\n\n| test | ticket |\n|---|---|\n| OrderEventsConsumerTests.Publishes_OrderPlaced_once | ORD-4471 |\n",
			"scripts/flaky.sh": `#!/bin/sh
# runs the Messaging integration tests N times and counts the failed runs
n=${1:-5}
failed=0
i=1
while [ $i -le $n ]; do
  dotnet test tests/Orders.IntegrationTests --no-build --filter Category=Messaging >/dev/null 2>&1 || failed=$((failed+1))
  i=$((i+1))
done
echo "$failed of $n runs failed"
[ $failed -eq 0 ]
`,
		},
		Bins:           map[string]string{"dotnet": dotnet},
		AllowedTools:   []string{"Bash(dotnet:*)", "Bash(./scripts/flaky.sh:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"in-turn"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			tests := p("tests/Orders.IntegrationTests/OrderEventsConsumerTests.cs")
			before = []turn{
				{Prompt: "Hello. I have ticket ORD-4471: the integration test OrderEventsConsumerTests is flaky in CI since two weeks, " +
					"around half of the builds is red because of it. Please can you find why it happens? One thing: the file " +
					"docker-compose.ci.yml you must not change, it belongs to the platform team, not to us.", Replies: []fakeapi.Reply{
					reply("", 9000, read("toolu_dn_read_fixture", p(fixture)), read("toolu_dn_read_tests", tests)),
					reply("", 11000, bash("toolu_dn_flaky5", "./scripts/flaky.sh 5", "Run the Messaging tests 5 times")),
					reply("", 12000, bash("toolu_dn_one", "dotnet test tests/Orders.IntegrationTests --filter Category=Messaging 2>&1 | tail -8", "One run, to see the failure")),
					reply("What I found:\n\n"+
						"1. `./scripts/flaky.sh 5`: **3 of 5 runs failed**, so the flake is reproducible here.\n"+
						"2. The failure is always `System.TimeoutException : Consumer did not receive OrderPlaced within 00:00:10` "+
						"in `Publishes_OrderPlaced_once`.\n"+
						"3. Cause: `RabbitMqFixture` uses the default wait strategy, which only waits until port 5672 accepts "+
						"connections. RabbitMQ opens the port before the broker has finished booting, so the first publish is "+
						"sometimes lost.\n\n"+
						"Proposal: wait for the broker's `Server startup complete` log line "+
						"(`Wait.ForUnixContainer().UntilMessageIsLogged(...)`). I would **not** raise the 10 s timeout: it would "+
						"only hide the race and make every red run slower.", 13000),
				}},
				{Prompt: "OK, this sounds logical for me. Do it like this. But attention: all Messaging tests together must stay " +
					"under 90 seconds in CI, our pipeline has a hard limit for this stage.", Replies: []fakeapi.Reply{
					reply("", 14000, edit("toolu_dn_edit_wait", p(fixture),
						"        .WithImage(\"rabbitmq:3.13-management\")\n",
						"        .WithImage(\"rabbitmq:3.13-management\")\n        .WithWaitStrategy(Wait.ForUnixContainer().UntilMessageIsLogged(\"Server startup complete\"))\n")),
					reply("", 15000, bash("toolu_dn_build1", "dotnet build", "Build the solution")),
					reply("", 16000, edit("toolu_dn_edit_using", p(fixture),
						"using Testcontainers.RabbitMq;\n",
						"using DotNet.Testcontainers.Builders;\nusing Testcontainers.RabbitMq;\n")),
					reply("", 17000, bash("toolu_dn_build2", "dotnet build", "Build again")),
					reply("- Changed `RabbitMqFixture.cs`: `.WithWaitStrategy(Wait.ForUnixContainer().UntilMessageIsLogged(\"Server startup complete\"))`.\n"+
						"- `dotnet build` first failed with `error CS0103: The name 'Wait' does not exist in the current context`; "+
						"fixed by adding `using DotNet.Testcontainers.Builders;`. Build succeeded now.\n"+
						"- Design: every test class keeps its own container through `IClassFixture<RabbitMqFixture>`, so queues "+
						"cannot leak from one class to another.\n"+
						"- Still to do at the end: remove the test from the \"Known flaky tests\" table in `docs/testing.md`.", 18000),
				}},
				{Prompt: "Hmm no, one container per class is not good for us. The CI runner has only 4 GB memory and every RabbitMQ " +
					"container takes ~300 MB, we have 6 classes with Messaging. Please make one shared container for all, with a " +
					"collection fixture.", Replies: []fakeapi.Reply{
					reply("", 19000, write("toolu_dn_write_coll", p("tests/Orders.IntegrationTests/RabbitMqCollection.cs"),
						"using Xunit;\n\nnamespace Orders.IntegrationTests;\n\n// One RabbitMQ container shared by every Messaging class: the CI runner has 4 GB.\n"+
							"[CollectionDefinition(Name)]\npublic sealed class RabbitMqCollection : ICollectionFixture<RabbitMqFixture>\n{\n    public const string Name = \"rabbitmq\";\n}\n")),
					reply("", 20000, edit("toolu_dn_edit_coll", tests,
						"[Trait(\"Category\", \"Messaging\")]\npublic class OrderEventsConsumerTests : IClassFixture<RabbitMqFixture>\n",
						"[Trait(\"Category\", \"Messaging\")]\n[Collection(RabbitMqCollection.Name)]\npublic class OrderEventsConsumerTests\n")),
					reply("", 21000, bash("toolu_dn_build3", "dotnet build", "Build")),
					reply("", 22000, bash("toolu_dn_msg", "dotnet test tests/Orders.IntegrationTests --filter Category=Messaging 2>&1 | tail -3", "Run the Messaging tests")),
					reply("Done:\n\n- New `RabbitMqCollection.cs` (`ICollectionFixture<RabbitMqFixture>`, name `rabbitmq`): one container "+
						"for all Messaging classes, because of the 4 GB runner.\n- `OrderEventsConsumerTests` uses `[Collection(RabbitMqCollection.Name)]` "+
						"instead of `IClassFixture`.\n- Messaging tests: 12 passed, 0 failed, duration **1 m 24 s** (84 s), under your 90 s limit.", 23000),
				}},
				{Prompt: "Good. Run please also the Payments ones, I want to know if all integration is ok before I tell the team.", Replies: []fakeapi.Reply{
					reply("", 24000, bash("toolu_dn_pay", "dotnet test tests/Orders.IntegrationTests --filter Category=Payments", "Run the Payments integration tests")),
					reply("Payments is not ok: `dotnet test tests/Orders.IntegrationTests --filter Category=Payments` exits 1, 1 of 9 "+
						"failed: `RefundFlowTests.Refund_is_idempotent` with `Npgsql.PostgresException : 23505: duplicate key value "+
						"violates unique constraint \"ix_refunds_order_id\"` (RefundService.cs line 77). It has nothing to do with "+
						"RabbitMQ.", 25000),
				}},
				{Prompt: "This one we know, it is ORD-4480, Tomasz works on it. Please don't fix it here. Now make the big check, " +
					"20 times, then we can close this.", Replies: []fakeapi.Reply{
					full("Running the Messaging tests 20 times now.", bash("toolu_dn_flaky20", "./scripts/flaky.sh 20", "Run the Messaging tests 20 times")),
					{Text: "`./scripts/flaky.sh 20`: 0 of 20 runs failed.", Usage: usageAt(7000), ToolResultFor: "toolu_dn_flaky20"},
				}},
			}
			after = []turn{
				{Prompt: "Super. So what is left now?", Replies: []fakeapi.Reply{
					reply("Going by the state above.", 8000),
				}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket ORD-4471", "ORD-4471"),
			lit("file changed: RabbitMqFixture.cs", "RabbitMqFixture.cs"),
			lit("file changed: RabbitMqCollection.cs", "RabbitMqCollection"),
			rx("failure fixed: CS0103 'Wait', by using DotNet.Testcontainers.Builders", `CS0103|'Wait' does not exist`, `DotNet\.Testcontainers\.Builders`),
			rx("finding: 3 of 5 runs failed before the fix", `\b3 (of|/|out of) 5\b|\b3/5\b`),
			rx("decision: wait for the startup log line, not a longer timeout", `UntilMessageIsLogged|Server startup complete`, `(?i)timeout`),
			rx("decision reversed by the user: one shared collection fixture, the CI runner has 4 GB", `(?i)collection`, `(?i)\b4 ?GB\b|\bRAM\b|runner[^\n]{0,40}memory|memory[^\n]{0,40}runner`),
			lit("constraint: docker-compose.ci.yml not to be changed", "docker-compose.ci.yml"),
			rx("constraint: the Messaging tests under 90 s", `(?i)\b90 ?(s\b|sec)`),
			rx("finding: the Messaging tests take 1 m 24 s", `1 ?m ?24 ?s|\b84 ?(s\b|sec)`),
			rx("failing test left alone: RefundFlowTests.Refund_is_idempotent", `Refund_is_idempotent|RefundFlowTests`),
			lit("ticket of the failing test: ORD-4480", "ORD-4480"),
			lit("open thread: take the test off docs/testing.md", "docs/testing.md"),
			rx("command: the 20-run check, 0 of 20 failed", `\b0 (of|/|out of) 20\b|\b0/20\b|20 (of|/|out of) 20`),
		},
	}
}

// The blind Helm scenario's secrets: an AWS key pair and a database
// password committed in a staging values file the agent reads, and a
// GitHub token the user pastes into a prompt and the agent passes to a
// command.
var (
	blindAWSKeyID  = secret{"AWS access key id", "AKIAUJZDEGXDNCF32EPF"}
	blindAWSSecret = secret{"AWS secret access key", "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"}
	blindDBPass    = secret{"Postgres password in a URL", "QedUStPKR0CsTy4Qwb8D"}
	blindGitHubPAT = secret{"GitHub personal access token", "ghp_hGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8rES"}
)

// blindHelmSecrets upgrades a Redis subchart and moves committed secrets
// to an ExternalSecret for a terse, lowercase user: a registry login with
// a pasted token, a version pinned for a licence, a lint error fixed, a
// piped kubeconform run that prints an invalid resource and exits 0, a
// memory reading from the cluster, a deploy flag decision the user
// reverses, two constraints, an open item said four turns before an
// automatic compaction.
func blindHelmSecrets() scenario {
	const chart = "charts/checkout"
	helm := `#!/bin/sh
# stand-in for helm: what the scenario needs, from the files' state
case "$1 $2" in
"registry login")
  echo "Login Succeeded"
  ;;
"dependency update")
  echo "Getting updates for unmanaged Helm repositories..."
  v=$(sed -n 's/^ *version: *"\{0,1\}\(19[0-9.]*\)"\{0,1\}$/\1/p' charts/checkout/Chart.yaml)
  echo "Saving 1 charts"
  echo "Downloading redis from repo oci://registry-1.docker.io/bitnamicharts"
  echo "Pulled: registry-1.docker.io/bitnamicharts/redis:$v"
  echo "Deleting outdated charts"
  ;;
"lint charts/checkout")
  echo "==> Linting charts/checkout"
  if grep -q 'secretKeyRef' charts/checkout/templates/deployment.yaml; then
    echo "[INFO] Chart.yaml: icon is recommended"
    echo
    echo "1 chart(s) linted, 0 chart(s) failed"
    exit 0
  fi
  echo '[ERROR] templates/: template: checkout/templates/deployment.yaml:41:30: executing "checkout/templates/deployment.yaml" at <.Values.redis.auth.password>: nil pointer evaluating interface {}.password'
  echo
  echo "Error: 1 chart(s) linted, 1 chart(s) failed"
  exit 1
  ;;
"template checkout")
  for k in ServiceAccount Secret ConfigMap Service Service Service Deployment StatefulSet NetworkPolicy ExternalSecret HorizontalPodAutoscaler ServiceMonitor Role PodDisruptionBudget; do
    echo "---"
    echo "kind: $k"
  done
  ;;
*) echo "helm: unknown command $*" >&2; exit 1 ;;
esac
`
	kubeconform := `#!/bin/sh
# stand-in for kubeconform reading manifests on stdin
cat >/dev/null
echo "stdin - PodDisruptionBudget checkout-redis failed validation: could not find schema for PodDisruptionBudget (policy/v1beta1)"
echo "Summary: 14 resources found parsing stdin - Valid: 13, Invalid: 0, Errors: 1, Skipped: 0"
exit 1
`
	kubectl := `#!/bin/sh
# stand-in for kubectl: reads only
case "$*" in
"top pod -n checkout-staging")
  echo "NAME                        CPU(cores)   MEMORY(bytes)"
  echo "checkout-7f9c6d5b8-x2kqp    112m         301Mi"
  echo "checkout-7f9c6d5b8-zt8wm    98m          296Mi"
  echo "checkout-redis-master-0     38m          412Mi"
  echo "checkout-redis-replicas-0   21m          188Mi"
  ;;
*) echo "error: the bench's kubectl only reads" >&2; exit 1 ;;
esac
`
	return scenario{
		Name:  "blind-helm-secrets",
		Shape: "held-out, blind; Helm/Kubernetes chart upgrade, auto; terse lowercase user, 4 secrets, piped kubeconform failure, reversed deploy flag",
		Files: map[string]string{
			chart + "/Chart.yaml": `apiVersion: v2
name: checkout
version: 3.8.0
appVersion: "2026.11.2"
dependencies:
  - name: redis
    version: 17.11.3
    repository: oci://registry-1.docker.io/bitnamicharts
`,
			chart + "/values.yaml": `image:
  repository: ghcr.io/shopco/checkout
  tag: "2026.11.2"
redis:
  architecture: replication
  master:
    resources:
      limits:
        memory: 512Mi
`,
			chart + "/values-staging.yaml": `env:
  DATABASE_URL: postgres://checkout:` + blindDBPass.Value + `@db-staging.internal:5432/checkout
  AWS_REGION: eu-central-1
  AWS_ACCESS_KEY_ID: ` + blindAWSKeyID.Value + `
  AWS_SECRET_ACCESS_KEY: ` + blindAWSSecret.Value + `
ingress:
  host: checkout.staging.shopco.internal
`,
			chart + "/values-prod.yaml": "ingress:\n  host: checkout.shopco.com\nreplicas: 6\n",
			chart + "/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
spec:
  template:
    spec:
      containers:
        - name: checkout
          env:
            - name: REDIS_PASSWORD
              value: {{ .Values.redis.auth.password | quote }}
`,
			chart + "/templates/pdb.yaml": "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: checkout-redis\nspec:\n  minAvailable: 1\n",
			"Makefile":                    "VALUES ?= charts/checkout/values-staging.yaml\n\ndeploy:\n\thelm upgrade --install checkout charts/checkout -f $(VALUES) --atomic\n",
		},
		Bins:           map[string]string{"helm": helm, "kubeconform": kubeconform, "kubectl": kubectl},
		AllowedTools:   []string{"Bash(helm:*)", "Bash(kubeconform:*)", "Bash(kubectl top:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "OPS-1187. bump the redis subchart in charts/checkout to 19.x. charts come from ghcr now, log in first, token " +
					blindGitHubPAT.Value + " user deploy-bot. dont touch values-prod.yaml. nothing against the cluster except reads: " +
					"no helm upgrade, no kubectl apply.", Replies: []fakeapi.Reply{
					reply("", 9000, bash("toolu_hm_login", "helm registry login ghcr.io --username deploy-bot --password "+blindGitHubPAT.Value, "Log in to ghcr.io")),
					reply("", 10000, read("toolu_hm_read_chart", p(chart+"/Chart.yaml"))),
					reply("", 11000, edit("toolu_hm_edit_chart", p(chart+"/Chart.yaml"), "    version: 17.11.3\n", "    version: 19.6.2\n")),
					reply("", 12000, bash("toolu_hm_dep", "helm dependency update charts/checkout", "Fetch the new subchart")),
					reply("Logged in to ghcr.io as deploy-bot. `Chart.yaml`: redis 17.11.3 → **19.6.2**, the last 19.x. I did not go "+
						"to 20.x: from 20.0 the chart ships Redis 7.4, whose licence (RSALv2/SSPL) legal has not cleared. "+
						"`helm dependency update charts/checkout` pulled it.", 13000),
				}},
				{Prompt: "lint w/ staging values", Replies: []fakeapi.Reply{
					reply("", 14000, read("toolu_hm_read_staging", p(chart+"/values-staging.yaml"))),
					reply("", 15000, bash("toolu_hm_lint1", "helm lint charts/checkout -f charts/checkout/values-staging.yaml", "Lint with the staging values")),
					reply("`helm lint` fails: `templates/deployment.yaml:41:30 ... at <.Values.redis.auth.password>: nil pointer "+
						"evaluating interface {}.password`. Chart 19 no longer takes a plain `auth.password` from the parent.\n\n"+
						"Also: `values-staging.yaml` has the database URL with its password and an AWS key pair in plain text, "+
						"committed. They belong in an ExternalSecret.", 16000),
				}},
				{Prompt: "yes. externalsecret, store aws-secretsmanager, key checkout/staging. fix the lint. after merge someone has to " +
					"rotate that aws key + the db password, they were in git for months", Replies: []fakeapi.Reply{
					reply("", 17000, read("toolu_hm_read_deploy", p(chart+"/templates/deployment.yaml"))),
					reply("", 18000, edit("toolu_hm_edit_deploy", p(chart+"/templates/deployment.yaml"),
						"              value: {{ .Values.redis.auth.password | quote }}\n",
						"              valueFrom:\n                secretKeyRef:\n                  name: checkout-redis\n                  key: redis-password\n")),
					reply("", 19000, write("toolu_hm_write_es", p(chart+"/templates/externalsecret.yaml"),
						"apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nmetadata:\n  name: checkout\nspec:\n"+
							"  secretStoreRef:\n    name: aws-secretsmanager\n    kind: ClusterSecretStore\n  target:\n    name: checkout-env\n"+
							"  dataFrom:\n    - extract:\n        key: checkout/staging\n")),
					reply("", 20000, edit("toolu_hm_edit_staging", p(chart+"/values-staging.yaml"),
						"  DATABASE_URL: postgres://checkout:"+blindDBPass.Value+"@db-staging.internal:5432/checkout\n  AWS_REGION: eu-central-1\n  AWS_ACCESS_KEY_ID: "+
							blindAWSKeyID.Value+"\n  AWS_SECRET_ACCESS_KEY: "+blindAWSSecret.Value+"\n",
						"  AWS_REGION: eu-central-1\nenvFrom:\n  - secretRef:\n      name: checkout-env\n")),
					reply("", 21000, bash("toolu_hm_lint2", "helm lint charts/checkout -f charts/checkout/values-staging.yaml", "Lint again")),
					reply("- `templates/deployment.yaml`: `REDIS_PASSWORD` now from `secretKeyRef` `checkout-redis`/`redis-password`.\n"+
						"- new `templates/externalsecret.yaml`: `aws-secretsmanager`, key `checkout/staging`, into `checkout-env`.\n"+
						"- `values-staging.yaml`: plaintext entries removed, `envFrom` `checkout-env`.\n"+
						"- `helm lint charts/checkout -f charts/checkout/values-staging.yaml`: 1 chart(s) linted, 0 chart(s) failed.\n\n"+
						"Noted for after the merge: rotate the AWS key and the DB password.", 22000),
				}},
				{Prompt: "render + kubeconform", Replies: []fakeapi.Reply{
					reply("", 23000, bash("toolu_hm_kc", "helm template checkout charts/checkout -f charts/checkout/values-staging.yaml | kubeconform -strict -summary 2>&1 | tail -5", "Validate the rendered manifests")),
					reply("kubeconform: 14 resources, 13 valid, **1 error**: `PodDisruptionBudget checkout-redis` is "+
						"`policy/v1beta1` (`templates/pdb.yaml`), removed in Kubernetes 1.25. It needs `policy/v1`.", 24000),
				}},
				{Prompt: "pdb later, separate pr. how much mem does redis use on staging", Replies: []fakeapi.Reply{
					reply("", 25000, bash("toolu_hm_top", "kubectl top pod -n checkout-staging", "Read the pods' memory")),
					reply("", 26000, read("toolu_hm_read_values", p(chart+"/values.yaml"))),
					reply("", 27000, edit("toolu_hm_edit_mem", p(chart+"/values.yaml"), "        memory: 512Mi\n", "        memory: 768Mi\n")),
					reply("", 28000, read("toolu_hm_read_make", p("Makefile"))),
					reply("", 29000, edit("toolu_hm_edit_make1", p("Makefile"), "--atomic\n", "--atomic --timeout 10m\n")),
					reply("`checkout-redis-master-0` uses **412Mi** of its 512Mi limit (80%), and 19.x adds a metrics sidecar, so I "+
						"raised the master's limit to 768Mi in `values.yaml` (not in prod values). In the `Makefile` I kept "+
						"`--atomic` on the deploy target, so a failed rollout rolls back by itself, and added `--timeout 10m`.", 30000),
				}},
				{Prompt: "no --atomic. it rolled back prod in march and ate the error. --wait --timeout 10m", Replies: []fakeapi.Reply{
					reply("", 31000, edit("toolu_hm_edit_make2", p("Makefile"), "--atomic --timeout 10m\n", "--wait --timeout 10m\n")),
					reply("Makefile deploy target: `helm upgrade --install checkout charts/checkout -f $(VALUES) --wait --timeout 10m`, "+
						"no `--atomic`.", 32000),
				}},
				{Prompt: "ok. meeting, brb", Replies: []fakeapi.Reply{full("ok")}},
			}
			after = []turn{
				{Prompt: "back. status", Replies: []fakeapi.Reply{reply("From the state above.", 8000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket OPS-1187", "OPS-1187"),
			lit("file changed: Chart.yaml, redis 19.6.2", "19.6.2"),
			rx("decision: not 20.x, for the licence", `(?i)licen[cs]e|RSAL|SSPL`),
			rx("failure fixed: the lint's nil pointer on redis.auth.password, by a secretKeyRef", `nil pointer|redis\.auth\.password`, `secretKeyRef|checkout-redis`),
			rx("command: helm lint passes now", `helm lint[^\n]{0,200}((?i)pass|\bok\b|0 chart\(s\) failed|exit 0|succe|clean)`),
			lit("file changed: templates/externalsecret.yaml", "externalsecret.yaml"),
			pipedFailed("piped command: kubeconform found the policy/v1beta1 PodDisruptionBudget", `kubeconform`,
				`kubeconform`, `(?i)PodDisruptionBudget|v1beta1|\b1 error|Errors: 1`),
			lit("constraint: don't touch values-prod.yaml", "values-prod.yaml"),
			rx("constraint: nothing against the cluster but reads", `(?i)\b(no|never|don.?t|not|without)\b[^\n]{0,40}(helm upgrade|kubectl apply)|read[- ]only (against|on|to) (the )?cluster|only reads|reads only|except reads`),
			rx("decision reversed by the user: --wait --timeout 10m, no --atomic", `--wait`, `10m`),
			rx("finding: redis master uses 412Mi of 512Mi", `412 ?Mi`),
			rx("file changed: values.yaml, redis limit 768Mi", `768 ?Mi`),
			rx("open thread: rotate the AWS key and the DB password after the merge", `(?i)rotat`),
		},
		Secrets: []secret{blindAWSKeyID, blindAWSSecret, blindDBPass, blindGitHubPAT},
	}
}

// blindA11yLists fixes accessibility audit items in a React frontend for a
// user who writes in bullet lists, with an agent reporting under headings:
// axe violations measured before and after, a TypeScript error fixed, a
// decision with its reason, one the user reverses for a browser in the
// field, a bundle budget and its measurement, a violation left open on
// purpose, an open item said two turns before a manual /compact with
// instructions.
func blindA11yLists() scenario {
	pnpm := `#!/bin/sh
# stand-in for pnpm: what the scenario needs, from the files' state
case "$*" in
"exec playwright test e2e/a11y.spec.ts --project=chromium")
  failed=0
  echo "Running 3 tests using 2 workers"
  echo
  if ! grep -q -- '--color-muted: #5f6670' src/styles/tokens.css; then
    failed=$((failed+1))
    echo "  $failed) [chromium] › e2e/a11y.spec.ts:9:3 › home page has no axe violations"
    echo "    color-contrast (serious): .text-muted: contrast 3.2:1 (#8a8f98 on #ffffff), expected 4.5:1"
  fi
  if ! grep -q 'aria-labelledby' src/components/Modal.tsx || ! grep -q 'aria-label="Previous month"' src/components/DatePicker.tsx; then
    failed=$((failed+1))
    echo "  $failed) [chromium] › e2e/a11y.spec.ts:15:3 › booking page has no axe violations"
    grep -q 'aria-labelledby' src/components/Modal.tsx || echo "    aria-dialog-name (serious): [role=dialog] has no accessible name"
    grep -q 'aria-label="Previous month"' src/components/DatePicker.tsx || echo "    button-name (critical): 2 icon buttons in .datepicker-nav have no discernible text"
  fi
  failed=$((failed+1))
  echo "  $failed) [chromium] › e2e/a11y.spec.ts:21:3 › reports page has no axe violations"
  echo "    scrollable-region-focusable (serious): .reports-table-wrapper is scrollable but not reachable by keyboard"
  echo
  echo "  $failed failed"
  echo "  $((3-failed)) passed (14.2s)"
  exit 1
  ;;
"exec tsc --noEmit")
  if grep -q 'aria-labelledby={titleId}' src/components/Modal.tsx && ! grep -q 'useId()' src/components/Modal.tsx; then
    echo "src/components/Modal.tsx(14,23): error TS2322: Type 'string | undefined' is not assignable to type 'string'."
    echo "  Type 'undefined' is not assignable to type 'string'."
    echo
    echo "Found 1 error in src/components/Modal.tsx:14"
    exit 2
  fi
  ;;
"build")
  echo "vite v6.3.1 building for production..."
  echo "✓ 1412 modules transformed."
  echo "dist/index.html                   0.61 kB │ gzip:  0.38 kB"
  echo "dist/assets/index-Cq8x2LmT.css   38.20 kB │ gzip:  7.41 kB"
  echo "dist/assets/index-B3k9fQ1a.js   241.87 kB │ gzip: 78.94 kB"
  echo "✓ built in 6.81s"
  ;;
*) echo "pnpm: unknown command $*" >&2; exit 1 ;;
esac
`
	return scenario{
		Name:  "blind-a11y-lists",
		Shape: "held-out, blind; React a11y fixes with Playwright/axe, manual with instructions; user writes lists, reversed focus-trap decision, bundle budget",
		Files: map[string]string{
			"package.json": `{
  "name": "clinic-booking-web",
  "private": true,
  "scripts": {"build": "vite build", "test:a11y": "playwright test e2e/a11y.spec.ts"},
  "dependencies": {"react": "^19.1.0", "react-dom": "^19.1.0", "focus-trap-react": "^11.0.3"},
  "devDependencies": {"@axe-core/playwright": "^4.10.1", "@playwright/test": "^1.52.0", "typescript": "^5.8.3", "vite": "^6.3.1"}
}
`,
			"src/styles/tokens.css": ":root {\n  --color-text: #1d2129;\n  --color-muted: #8a8f98;\n  --color-accent: #0a66c2;\n}\n",
			"src/components/Modal.tsx": `import type { ReactNode } from "react";

type Props = { title: string; open: boolean; onClose: () => void; children: ReactNode };

export function Modal({ title, open, onClose, children }: Props) {
  if (!open) return null;
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div role="dialog" aria-modal="true" className="modal">
        <h2 className="modal-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}
`,
			"src/components/DatePicker.tsx": `export function DatePickerNav({ onPrev, onNext }: { onPrev: () => void; onNext: () => void }) {
  return (
    <div className="datepicker-nav">
      <button type="button" onClick={onPrev}><ChevronLeft /></button>
      <button type="button" onClick={onNext}><ChevronRight /></button>
    </div>
  );
}
`,
			"e2e/a11y.spec.ts": "import { test, expect } from \"@playwright/test\";\nimport AxeBuilder from \"@axe-core/playwright\";\n\nfor (const path of [\"/\", \"/booking\", \"/reports\"]) {\n  test(`${path} has no axe violations`, async ({ page }) => {\n    await page.goto(path);\n    const r = await new AxeBuilder({ page }).analyze();\n    expect(r.violations).toEqual([]);\n  });\n}\n",
		},
		Bins:           map[string]string{"pnpm": pnpm},
		AllowedTools:   []string{"Bash(pnpm:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		CompactArgs:    "focus on the audit items, drop the tsc noise",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			modal := p("src/components/Modal.tsx")
			before = []turn{
				{Prompt: "WEB-3302, fixes from the accessibility audit.\n\nIn scope:\n- contrast of the muted text\n" +
					"- the modal has no accessible name\n- datepicker prev/next buttons have no label\n\nRules:\n" +
					"- design signed off exactly ONE colour change: --color-muted to #5f6670. nothing else visual changes.\n" +
					"- main JS chunk must stay under 80 kB gzip\n\nFirst: run the axe spec so we have a baseline.", Replies: []fakeapi.Reply{
					reply("", 9000, bash("toolu_ax_pw1", "pnpm exec playwright test e2e/a11y.spec.ts --project=chromium", "Baseline axe run")),
					reply("## Baseline\n\n`pnpm exec playwright test e2e/a11y.spec.ts --project=chromium`: 3 failed, 4 violations:\n\n"+
						"| page | rule | detail |\n|---|---|---|\n"+
						"| / | color-contrast | `.text-muted` 3.2:1 (#8a8f98 on white), needs 4.5:1 |\n"+
						"| /booking | aria-dialog-name | the dialog has no accessible name |\n"+
						"| /booking | button-name | the two datepicker icon buttons |\n"+
						"| /reports | scrollable-region-focusable | `.reports-table-wrapper` not reachable by keyboard |\n\n"+
						"The first three are in scope; the last one is not on your list.", 10000),
				}},
				{Prompt: "ok, plan:\n- fix the three in scope\n- reports table: not in this ticket, don't touch it", Replies: []fakeapi.Reply{
					reply("", 11000, read("toolu_ax_read_tokens", p("src/styles/tokens.css"))),
					reply("", 12000, edit("toolu_ax_edit_tokens", p("src/styles/tokens.css"), "  --color-muted: #8a8f98;\n", "  --color-muted: #5f6670;\n")),
					reply("", 13000, read("toolu_ax_read_dp", p("src/components/DatePicker.tsx"))),
					reply("", 14000, edit("toolu_ax_edit_dp", p("src/components/DatePicker.tsx"),
						"      <button type=\"button\" onClick={onPrev}><ChevronLeft /></button>\n      <button type=\"button\" onClick={onNext}><ChevronRight /></button>\n",
						"      <button type=\"button\" aria-label=\"Previous month\" onClick={onPrev}><ChevronLeft aria-hidden /></button>\n      <button type=\"button\" aria-label=\"Next month\" onClick={onNext}><ChevronRight aria-hidden /></button>\n")),
					reply("", 15000, read("toolu_ax_read_modal", modal)),
					reply("", 16000, edit("toolu_ax_edit_modal1", modal,
						"type Props = { title: string; open: boolean; onClose: () => void; children: ReactNode };\n\nexport function Modal({ title, open, onClose, children }: Props) {\n",
						"type Props = { title: string; titleId?: string; open: boolean; onClose: () => void; children: ReactNode };\n\nexport function Modal({ title, titleId, open, onClose, children }: Props) {\n")),
					reply("", 17000, edit("toolu_ax_edit_modal2", modal,
						"      <div role=\"dialog\" aria-modal=\"true\" className=\"modal\">\n        <h2 className=\"modal-title\">{title}</h2>\n",
						"      <div role=\"dialog\" aria-modal=\"true\" aria-labelledby={titleId} className=\"modal\">\n        <h2 id={titleId} className=\"modal-title\">{title}</h2>\n")),
					reply("", 18000, bash("toolu_ax_tsc1", "pnpm exec tsc --noEmit", "Type-check")),
					reply("", 19000, edit("toolu_ax_edit_modal3", modal,
						"type Props = { title: string; titleId?: string; open: boolean; onClose: () => void; children: ReactNode };\n\nexport function Modal({ title, titleId, open, onClose, children }: Props) {\n  if (!open) return null;\n",
						"type Props = { title: string; open: boolean; onClose: () => void; children: ReactNode };\n\nexport function Modal({ title, open, onClose, children }: Props) {\n  const titleId = useId();\n  if (!open) return null;\n")),
					reply("", 20000, edit("toolu_ax_edit_modal4", modal,
						"import type { ReactNode } from \"react\";\n",
						"import { useId, type ReactNode } from \"react\";\n")),
					reply("", 21000, bash("toolu_ax_tsc2", "pnpm exec tsc --noEmit", "Type-check again")),
					reply("## Done\n\n- `src/styles/tokens.css`: `--color-muted` #8a8f98 → **#5f6670** (5.9:1 on white, was 3.2:1).\n"+
						"- `src/components/DatePicker.tsx`: `aria-label=\"Previous month\"` / `\"Next month\"`, icons `aria-hidden`.\n"+
						"- `src/components/Modal.tsx`: `aria-labelledby` pointing at the title's id.\n\n"+
						"## Type error, fixed\n\n`pnpm exec tsc --noEmit` failed with `TS2322: Type 'string | undefined' is not assignable "+
						"to type 'string'` (Modal.tsx:14) while the id was an optional prop. The id now comes from React's `useId()` "+
						"inside the Modal: ids from a prop or `Math.random()` differ between the server render and hydration, "+
						"`useId()` is stable. tsc is clean.", 22000),
				}},
				{Prompt: "review:\n- good\n- the focus trap too please. axe can't see it but the audit lists it (item 7): focus escapes the modal with Tab", Replies: []fakeapi.Reply{
					reply("", 23000, edit("toolu_ax_edit_inert", modal,
						"  if (!open) return null;\n",
						"  useEffect(() => {\n    const root = document.getElementById(\"app-root\");\n    if (open) root?.setAttribute(\"inert\", \"\");\n    return () => root?.removeAttribute(\"inert\");\n  }, [open]);\n  if (!open) return null;\n")),
					reply("## Focus trap\n\nWhile the modal is open, `#app-root` gets the native `inert` attribute: the page behind "+
						"cannot take focus, with no library and no extra JS in the bundle.\n\n## Left after this\n\n"+
						"- `/reports` table (`scrollable-region-focusable`): needs `tabIndex={0}`, `role=\"region\"` and an "+
						"`aria-label` on the wrapper, but I'd ask design about the focus ring first. Not in this ticket.\n"+
						"- Skip link (audit item 2), also not in this ticket.", 24000),
				}},
				{Prompt: "two things:\n- no inert: the clinics' iPads are stuck on iOS 15.2, inert only works from Safari 15.5\n" +
					"- use focus-trap-react, it's already in package.json (Drawer uses it)\n- then run axe + build again", Replies: []fakeapi.Reply{
					reply("", 25000, edit("toolu_ax_edit_trap1", modal,
						"  useEffect(() => {\n    const root = document.getElementById(\"app-root\");\n    if (open) root?.setAttribute(\"inert\", \"\");\n    return () => root?.removeAttribute(\"inert\");\n  }, [open]);\n  if (!open) return null;\n",
						"  if (!open) return null;\n")),
					reply("", 26000, edit("toolu_ax_edit_trap2", modal,
						"    <div className=\"modal-backdrop\" onClick={onClose}>\n",
						"    <FocusTrap focusTrapOptions={{ onDeactivate: onClose }}>\n    <div className=\"modal-backdrop\" onClick={onClose}>\n")),
					reply("", 27000, edit("toolu_ax_edit_trap3", modal,
						"    </div>\n  );\n}\n",
						"    </div>\n    </FocusTrap>\n  );\n}\n")),
					reply("", 28000, edit("toolu_ax_edit_trap4", modal,
						"import { useId, type ReactNode } from \"react\";\n",
						"import FocusTrap from \"focus-trap-react\";\nimport { useId, type ReactNode } from \"react\";\n")),
					reply("", 29000, bash("toolu_ax_pw2", "pnpm exec playwright test e2e/a11y.spec.ts --project=chromium", "axe again")),
					reply("", 30000, bash("toolu_ax_build", "pnpm build", "Build, for the bundle size")),
					reply("## Focus trap, reworked\n\n- `inert` removed; the Modal is wrapped in `<FocusTrap>` from `focus-trap-react` "+
						"(already a dependency, as in Drawer), which works on iOS 15.2.\n\n## Checks\n\n"+
						"- axe: 1 failed, 2 passed. Only `scrollable-region-focusable` on `/reports` is left (out of scope). "+
						"The command still exits 1 because of it.\n"+
						"- `pnpm build`: main chunk `index-B3k9fQ1a.js` 241.87 kB, **78.94 kB gzip**, under the 80 kB budget.", 31000),
				}},
				{Prompt: "last:\n- don't commit yet, I want to look at the diff myself first\n- standup now", Replies: []fakeapi.Reply{
					reply("OK, nothing committed; the changes are in the working tree for you to review.", 32000),
				}},
			}
			after = []turn{
				{Prompt: "ok\n- back\n- what's the state?", Replies: []fakeapi.Reply{reply("From the state above.", 8000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket WEB-3302", "WEB-3302"),
			lit("file changed: src/styles/tokens.css", "tokens.css"),
			rx("constraint: one colour change only, --color-muted to #5f6670", `(?i)#?5f6670`, `(?i)sign(ed)?[- ]off|nothing else visual|no other (visual|colou?r)|only (one|this|that|the one) colou?r|one colou?r change`),
			rx("constraint: main chunk under 80 kB gzip", `\b80 ?kB`),
			rx("finding: the main chunk is 78.94 kB gzip", `78[.,]94`),
			rx("finding: contrast 3.2:1 before, 5.9:1 after", `3\.2:1`, `5\.9:1`),
			lit("file changed: Modal.tsx and DatePicker.tsx", "Modal.tsx", "DatePicker.tsx"),
			rx("failure fixed: TS2322 in Modal.tsx, by useId", `TS2322`, `useId`),
			rx("decision: useId for the title id, because of SSR hydration", `useId`, `(?i)hydrat|\bSSR\b|server[- ]render`),
			rx("decision reversed by the user: focus-trap-react, not inert", `focus-trap-react|FocusTrap`),
			rx("constraint: the clinics' iPads are on iOS 15.2", `(?i)(ios|safari|ipad)[^\n]{0,30}15\.[25]`),
			rx("failing command: the axe spec still fails on scrollable-region-focusable", `scrollable-region-focusable`),
			rx("open thread: the reports table, ask design about the focus ring", `(?i)focus[- ]ring`),
			rx("constraint: don't commit yet", `(?i)\b(not|don.t|no|nothing)\b[^\n]{0,25}commit`),
		},
	}
}
