// Package imagetest builds container images in memory for tests: a layer from
// named files, an image of such layers. Only tests import it.
//
// go-containerregistry's tarball.LayerFromReader buffers its reader in a file
// it creates in the temporary directory and never removes; the tests that used
// it left one such file in /tmp for every layer of every run. Layer reads its
// bytes from memory instead.
package imagetest
