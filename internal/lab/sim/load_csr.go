package sim

import (
	"context"
	"fmt"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// csrRequestorBinding is the ClusterRoleBinding through which the simulator lets
// a CSR's requestor create it, when the must-gather's RBAC does not already.
const csrRequestorBinding = "recover-sim:csr-requestors"

// nodeBootstrapperRole is Kubernetes' bootstrap ClusterRole that may create CSRs.
const nodeBootstrapperRole = "system:node-bootstrapper"

// createCSR creates a certificate signing request as its requestor: the API server
// records the creating user in spec.username, groups, uid and extra, whatever the
// object says, so the loader impersonates the must-gather's requestor (an admin
// may) and the CSR keeps who asked for it, which is what the machine approver and
// recover judge it by. Approved and Denied conditions go through the /approval
// subresource, a certificate and other conditions through /status.
func (s *Sim) createCSR(ctx context.Context, csr *certificatesv1.CertificateSigningRequest) (*certificatesv1.CertificateSigningRequest, error) {
	status := csr.Status
	want := csr.DeepCopy()
	want.Status = certificatesv1.CertificateSigningRequestStatus{}
	want.ResourceVersion, want.UID = "", ""
	client, err := s.clientAs(csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups, csr.Spec.Extra)
	if err != nil {
		return nil, err
	}
	csrs := client.CertificatesV1().CertificateSigningRequests()
	created, err := csrs.Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsForbidden(err) && csr.Spec.Username != "" {
		if err := s.allowCSRRequestor(ctx, csr.Spec.Username); err != nil {
			return nil, err
		}
		// The RBAC authorizer sees the new binding from its informer, a moment
		// later (longer on a loaded machine): retry while it is still Forbidden.
		var createErr error
		err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			created, createErr = csrs.Create(ctx, want, metav1.CreateOptions{})
			return !apierrors.IsForbidden(createErr), nil
		})
		if err == nil {
			err = createErr
		} else {
			err = fmt.Errorf("creating CertificateSigningRequest %s as %s: still forbidden after granting %s: %w", want.Name, csr.Spec.Username, nodeBootstrapperRole, createErr)
		}
	}
	if err != nil {
		return nil, err
	}
	admin := s.kube.CertificatesV1().CertificateSigningRequests()
	var decisions, others []certificatesv1.CertificateSigningRequestCondition
	for _, c := range status.Conditions {
		if c.Type == certificatesv1.CertificateApproved || c.Type == certificatesv1.CertificateDenied {
			decisions = append(decisions, c)
		} else {
			others = append(others, c)
		}
	}
	if len(decisions) > 0 {
		err := retryConflict(ctx, func() error {
			cur, err := admin.Get(ctx, created.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur.Status.Conditions = append(cur.Status.Conditions, decisions...)
			created, err = admin.UpdateApproval(ctx, cur.Name, cur, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("recording its approval: %w", err)
		}
	}
	if len(status.Certificate) > 0 || len(others) > 0 {
		err := retryConflict(ctx, func() error {
			cur, err := admin.Get(ctx, created.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if len(cur.Status.Certificate) == 0 {
				// The signing controller may have issued one already.
				cur.Status.Certificate = status.Certificate
			}
			cur.Status.Conditions = append(cur.Status.Conditions, others...)
			created, err = admin.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("writing its status: %w", err)
		}
	}
	return created, nil
}

// clientAs returns a client that impersonates the given user (the admin's own
// client when user is empty).
func (s *Sim) clientAs(user, uid string, groups []string, extra map[string]certificatesv1.ExtraValue) (kubernetes.Interface, error) {
	if user == "" {
		return s.kube, nil
	}
	cfg := s.restConfig()
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, UID: uid, Groups: groups}
	if len(extra) > 0 {
		cfg.Impersonate.Extra = map[string][]string{}
		for k, v := range extra {
			cfg.Impersonate.Extra[k] = v
		}
	}
	return kubernetes.NewForConfig(cfg)
}

// allowCSRRequestor binds user to system:node-bootstrapper (create, get, list and
// watch CSRs) in the simulator's own ClusterRoleBinding.
func (s *Sim) allowCSRRequestor(ctx context.Context, user string) error {
	bindings := s.kube.RbacV1().ClusterRoleBindings()
	subject := rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}
	return retryConflict(ctx, func() error {
		b, err := bindings.Get(ctx, csrRequestorBinding, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = bindings.Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: csrRequestorBinding},
				RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: nodeBootstrapperRole},
				Subjects:   []rbacv1.Subject{subject},
			}, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				return apierrors.NewConflict(rbacv1.Resource("clusterrolebindings"), csrRequestorBinding, err)
			}
			return err
		}
		if err != nil {
			return err
		}
		for _, sub := range b.Subjects {
			if sub.Kind == subject.Kind && sub.Name == subject.Name {
				return nil
			}
		}
		b.Subjects = append(b.Subjects, subject)
		_, err = bindings.Update(ctx, b, metav1.UpdateOptions{})
		return err
	})
}

// loadCSR creates a must-gather CSR (see createCSR) and returns its new UID.
func (l *loader) loadCSR(ctx context.Context, o sourcedObject) (types.UID, error) {
	u := cleanForCreate(o.Object)
	csr := &certificatesv1.CertificateSigningRequest{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, csr); err != nil {
		return "", fmt.Errorf("%w: %v", errDecode, err)
	}
	csr.OwnerReferences = nil
	created, err := l.s.createCSR(ctx, csr)
	if err != nil {
		return "", err
	}
	return created.UID, nil
}

// isCSR reports whether u is a certificates.k8s.io CertificateSigningRequest.
func isCSR(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == certificatesv1.GroupName && gvk.Kind == "CertificateSigningRequest" && strings.HasPrefix(gvk.Version, "v1")
}
