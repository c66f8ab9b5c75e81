package lock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// These unit tests use client-go's fake clientset for the lease arithmetic; the
// real-apiserver tests in package apply prove contention, --break-lock and resume
// takeover end to end.

func lease(holder, runID string, renewed time.Time, seconds int32) *coordinationv1.Lease {
	t := metav1.NewMicroTime(renewed)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: Name, Namespace: Namespace, Annotations: map[string]string{RunIDAnnotation: runID, JournalAnnotation: "/j"}},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), AcquireTime: &t, RenewTime: &t, LeaseDurationSeconds: ptr.To(seconds)},
	}
}

func TestAcquireRespectsALiveHolderAndTakesAnExpiredLease(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2020, 5, 24, 16, 0, 0, 0, time.UTC)
	client := fake.NewClientset(lease("alice@host pid 1", "run-a", now.Add(-30*time.Second), 60))
	opts := Options{Holder: "bob@host pid 2", RunID: "run-b", Now: func() time.Time { return now }}

	_, err := Acquire(ctx, client, opts)
	var held *HeldError
	if !errors.As(err, &held) || held.Holder != "alice@host pid 1" || !held.Expires.Equal(now.Add(30*time.Second)) || !strings.Contains(err.Error(), "--break-lock") {
		t.Fatalf("live holder: %v", err)
	}

	// Its own dead predecessor's lease is taken over by a resume of the same run.
	resume := opts
	resume.TakeOverRunID = "run-a"
	l, err := Acquire(ctx, client, resume)
	if err != nil || l.TookOver != "alice@host pid 1" {
		t.Fatalf("resume takeover: %v", err)
	}
	close(l.stop)
	<-l.done

	// An expired lease is free.
	client = fake.NewClientset(lease("alice@host pid 1", "run-a", now.Add(-61*time.Second), 60))
	l, err = Acquire(ctx, client, opts)
	if err != nil {
		t.Fatalf("expired lease: %v", err)
	}
	got, _ := client.CoordinationV1().Leases(Namespace).Get(ctx, Name, metav1.GetOptions{})
	if *got.Spec.HolderIdentity != "bob@host pid 2" || got.Annotations[RunIDAnnotation] != "run-b" || *got.Spec.LeaseTransitions != 1 {
		t.Fatalf("lease after takeover: %+v", got.Spec)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoordinationV1().Leases(Namespace).Get(ctx, Name, metav1.GetOptions{}); err == nil {
		t.Fatalf("Release should delete the lease it holds")
	}
}

func TestRenewalNoticesAStolenLease(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	l, err := Acquire(ctx, client, Options{Holder: "bob", RunID: "run-b", Duration: 3 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// Someone breaks the lock.
	stolen, _ := client.CoordinationV1().Leases(Namespace).Get(ctx, Name, metav1.GetOptions{})
	stolen.Spec.HolderIdentity = ptr.To("mallory")
	stolen.Annotations[RunIDAnnotation] = "run-m"
	if _, err := client.CoordinationV1().Leases(Namespace).Update(ctx, stolen, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost():
	case <-time.After(10 * time.Second):
		t.Fatal("the stolen lease was not noticed")
	}
	if !errors.Is(l.Err(), ErrLost) || !strings.Contains(l.Err().Error(), "mallory") {
		t.Fatalf("lost error: %v", l.Err())
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := client.CoordinationV1().Leases(Namespace).Get(ctx, Name, metav1.GetOptions{}); err != nil || *got.Spec.HolderIdentity != "mallory" {
		t.Fatalf("Release must not delete a lease another run holds: %v", err)
	}
}

// A create that reached the server but whose answer was lost (a connection reset)
// must not make the retry see its own lease as somebody else's.
func TestRetriedAcquireRecognisesItsOwnLease(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2020, 5, 24, 16, 0, 0, 0, time.UTC)
	client := fake.NewClientset()
	lost := true
	client.PrependReactor("create", "leases", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if !lost {
			return false, nil, nil
		}
		lost = false
		obj := action.(k8stesting.CreateAction).GetObject()
		if err := client.Tracker().Create(action.GetResource(), obj, Namespace); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewInternalError(errors.New("connection reset after the write"))
	})
	opts := Options{Holder: "bob@host pid 2", RunID: "run-b", Now: func() time.Time { return now }}
	if _, err := Acquire(ctx, client, opts); !apierrors.IsInternalError(err) {
		t.Fatalf("the first attempt should fail with the lost answer, got %v", err)
	}
	l, err := Acquire(ctx, client, opts)
	if err != nil {
		t.Fatalf("the retry must recognise the lease its first attempt created, got %v", err)
	}
	close(l.stop)
	<-l.done

	// Another run with the same holder name but a different run ID is not "us".
	other := opts
	other.RunID = "run-c"
	if _, err := Acquire(ctx, client, other); !errors.As(err, new(*HeldError)) {
		t.Fatalf("a different run must see the lease as held, got %v", err)
	}
}

// TestWaitExpiryTakesAGoneHoldersLeaseAndRespectsALiveOne: a run that cannot
// prove its predecessor dead (WaitExpiry, another identity, no run ID to take
// over) waits for the lease to expire and takes it then; a holder that renews
// the lease meanwhile is alive, and the waiting run is refused.
func TestWaitExpiryTakesAGoneHoldersLeaseAndRespectsALiveOne(t *testing.T) {
	ctx := context.Background()
	var told []string
	opts := Options{Holder: "pod-b", RunID: "run-b", WaitExpiry: true, Waiting: func(h *HeldError, until time.Time) {
		// The waiting run says whom it waits for and until when at most
		// (issue 34: a waiting pod printed nothing and looked hung).
		if !until.After(h.Expires) {
			t.Errorf("waits until %v, before the lease expires at %v", until, h.Expires)
		}
		told = append(told, h.Holder+"/"+h.RunID)
	}}

	// Renewed 1.5 s before a 2 s lease: it expires in half a second.
	client := fake.NewClientset(lease("pod-a", "run-a", time.Now().Add(-1500*time.Millisecond), 2))
	l, err := Acquire(ctx, client, opts)
	if err != nil || l.TookOver != "pod-a" {
		t.Fatalf("a gone holder's lease: %v", err)
	}

	close(l.stop)
	<-l.done

	client = fake.NewClientset(lease("pod-a", "run-a", time.Now(), 2))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		// pod-a is alive: it renews every half second.
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			cur, err := client.CoordinationV1().Leases(Namespace).Get(ctx, Name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			now := metav1.NewMicroTime(time.Now())
			cur.Spec.RenewTime = &now
			_, _ = client.CoordinationV1().Leases(Namespace).Update(ctx, cur, metav1.UpdateOptions{})
		}
	}()
	told = nil
	var held *HeldError
	if _, err := Acquire(ctx, client, opts); !errors.As(err, &held) || held.Holder != "pod-a" {
		t.Fatalf("a live holder's lease must stay its own: %v", err)
	}
	if len(told) != 1 || told[0] != "pod-a/run-a" {
		t.Errorf("told of the wait %v, want once, for pod-a/run-a", told)
	}
}
