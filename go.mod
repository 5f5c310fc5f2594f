module github.com/cairn-agent/cairn

go 1.26.8

require (
	github.com/gofrs/flock v0.13.1
	github.com/google/go-cmp v0.7.0
	github.com/rogpeppe/go-internal v1.16.0
)

require (
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
