// Package e2e is the end-to-end bench: it drives the real Claude Code client
// (package claudecode) against a scripted fake Anthropic API (package
// fakeapi), then runs the cairn binary on the transcripts the client wrote
// and checks that cairn reports exactly the numbers the fake made the client
// record.
//
// Each test first checks the raw transcript and the requests the fake saw,
// so the bench itself is verified even while a cairn command is missing,
// then checks cairn's JSON against the same expectations.
package e2e
