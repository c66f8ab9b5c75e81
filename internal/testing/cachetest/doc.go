// Package cachetest holds what the tests of recover's on-disk caches (the
// decoded-payload and loaded-graph caches) share. Only tests import it.
package cachetest
