# SMTP credentials. Terraform creates the secrets and their access, never the
# values (they would land in the state): add a version by hand, see README.md.
locals {
  # Secret => the workloads that read it. Only the drain sends email.
  secrets = {
    smtp-username = ["job-drain"]
    smtp-password = ["job-drain"]
    # The smoke account's sign-in (deploy/first-accounts writes it), read by
    # Cloud Build's smoke test (deploy/smoke).
    smoke-email    = ["build"]
    smoke-password = ["build"]
  }
  secret_readers = merge(local.db_accounts, { build = google_service_account.build.email })
  secret_accessors = merge([for s, readers in local.secrets : {
    for r in readers : "${s}/${r}" => { secret = s, account = local.secret_readers[r] }
  }]...)
}

resource "google_secret_manager_secret" "secret" {
  for_each  = local.secrets
  secret_id = each.key
  replication {
    auto {}
  }
}

resource "google_secret_manager_secret_iam_member" "accessor" {
  for_each  = local.secret_accessors
  secret_id = google_secret_manager_secret.secret[each.value.secret].id
  role      = "roles/secretmanager.secretAccessor"
  member    = "serviceAccount:${each.value.account}"
}
