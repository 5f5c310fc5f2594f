package outcome

import (
	"slices"
	"strings"
	"testing"
)

func TestPasted(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     string // the shortened text
		wantErrs []string
	}{
		{
			name: "a Python traceback through libraries",
			in: "every call blows up:\n\n```\nTraceback (most recent call last):\n" +
				"  File \"/srv/app/.venv/lib/python3.12/site-packages/uvicorn/protocols/http/httptools_impl.py\", line 409, in run_asgi\n" +
				"    result = await app(  # type: ignore[func-returns-value]\n" +
				"  File \"/srv/app/app/api/routes/orders.py\", line 14, in list_orders\n" +
				"    rows = (await session.execute(stmt)).scalars().all()\n" +
				"  File \"/srv/app/.venv/lib/python3.12/site-packages/sqlalchemy/engine/default.py\", line 951, in do_execute\n" +
				"    cursor.execute(statement, parameters)\n" +
				"sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist\n" +
				"LINE 1: ...orders.status FROM orders...\n```\n\nTicket is SHIP-1.",
			want: "every call blows up:\n\n```\nTraceback (most recent call last):\n…\n" +
				"File \"/srv/app/app/api/routes/orders.py\", line 14, in list_orders\n" +
				"sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist\n" +
				"LINE 1: ...orders.status FROM orders...\n```\n\nTicket is SHIP-1.",
			wantErrs: []string{"sqlalchemy.exc.ProgrammingError: (psycopg.errors.UndefinedColumn) column orders.fulfilled_at does not exist"},
		},
		{
			name: "a chained Python exception: the first is the cause",
			in: "Traceback (most recent call last):\n  File \"app/db.py\", line 3, in connect\n    sock.connect(addr)\nConnectionRefusedError: [Errno 111] Connection refused\n\n" +
				"The above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File \"app/main.py\", line 9, in <module>\n    db.connect()\nRuntimeError: database unavailable",
			wantErrs: []string{"ConnectionRefusedError: [Errno 111] Connection refused", "RuntimeError: database unavailable"},
		},
		{
			name: "a Java chain: frames go, the innermost cause first",
			in: "prod logs say:\nException in thread \"main\" java.lang.IllegalStateException: boot failed\n\tat app.Main.main(Main.java:12)\n\tat app.Main.run(Main.java:3)\n" +
				"Caused by: org.postgresql.util.PSQLException: ERROR: relation \"users\" does not exist\n\tat org.postgresql.Q.r(Q.java:2713)\n\t... 12 more\nany idea?",
			want: "prod logs say:\nException in thread \"main\" java.lang.IllegalStateException: boot failed\n…\n" +
				"Caused by: org.postgresql.util.PSQLException: ERROR: relation \"users\" does not exist\n…\nany idea?",
			wantErrs: []string{"org.postgresql.util.PSQLException: ERROR: relation \"users\" does not exist"},
		},
		{
			name: "a JavaScript stack",
			in:   "TypeError: Cannot read properties of undefined (reading 'id')\n    at render (src/App.tsx:12:5)\n    at next (node_modules/x/y.js:1:1)\nhelp",
			want: "TypeError: Cannot read properties of undefined (reading 'id')\n…\nhelp",
		},
		{
			name: "not a frame",
			in:   "please rename at least the tests\n\tat the top",
			want: "please rename at least the tests\n\tat the top",
		},
		{
			name: "plain text",
			in:   "fix the login page, it says 500",
			want: "fix the login page, it says 500",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := Pasted(tt.in)
			if tt.want != "" && got != tt.want {
				t.Errorf("Pasted =\n%s\nwant\n%s", got, tt.want)
			}
			if tt.wantErrs != nil && !slices.Equal(errs, tt.wantErrs) {
				t.Errorf("errs = %q, want %q", errs, tt.wantErrs)
			}
			if len(got) > len(tt.in) || !strings.HasPrefix(tt.in, got[:min(len(got), 10)]) {
				t.Errorf("not a shortening of the text: %q", got)
			}
		})
	}
}
