package incluster

import "k8s.io/client-go/kubernetes"

// NewJournalStoreWithChunks is NewJournalStore with chunks of chunkBytes, so
// that a test fills several with a few records.
func NewJournalStoreWithChunks(client kubernetes.Interface, namespace, name string, chunkBytes int) *JournalStore {
	s := NewJournalStore(client, namespace, name)
	s.chunkBytes = chunkBytes
	return s
}

// PlanConfigMapsWithParts is PlanConfigMaps with parts of partBytes.
var PlanConfigMapsWithParts = planConfigMaps
