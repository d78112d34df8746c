# Cloud SQL for PostgreSQL 16: reachable only through the Cloud SQL connector
# (no authorized networks, connector enforcement), IAM database
# authentication for every workload, backups with point-in-time recovery.

resource "google_sql_database_instance" "main" {
  name                = "lexora"
  database_version    = "POSTGRES_16"
  region              = var.region
  deletion_protection = true

  settings {
    edition                     = "ENTERPRISE"
    tier                        = var.sql_tier
    availability_type           = var.sql_availability
    deletion_protection_enabled = true
    connector_enforcement       = "REQUIRED"
    # No SQL over the Admin API (ExecuteSql): a holder of
    # cloudsql.instances.executeSql (e.g. roles/cloudsql.instanceUser) could
    # otherwise run SQL from anywhere as its database user. The roles and
    # memberships are made by the migrate job instead (see below).
    data_api_access = "DISALLOW_DATA_API"

    ip_configuration {
      ipv4_enabled = true
      ssl_mode     = "TRUSTED_CLIENT_CERTIFICATE_REQUIRED"
      # No authorized_networks: the connector is the only way in.
    }

    backup_configuration {
      enabled                        = true
      start_time                     = "02:00"
      point_in_time_recovery_enabled = true
      transaction_log_retention_days = 7
      backup_retention_settings {
        retained_backups = 30
      }
    }

    maintenance_window {
      day  = 7
      hour = 3
    }

    insights_config {
      query_insights_enabled = true
    }

    database_flags {
      name  = "cloudsql.iam_authentication"
      value = "on"
    }
    database_flags {
      name  = "max_connections"
      value = tostring(var.sql_max_connections)
    }
  }
}

resource "google_sql_database" "lexora" {
  name     = "lexora"
  instance = google_sql_database_instance.main.name
}

# One IAM database user per workload: the service account's email without
# ".gserviceaccount.com" (that is also its DATABASE_URL user). The migrate
# job's is in cloudsqlsuperuser (given through the Admin API, not SQL): it
# makes the roles and memberships below before it migrates.
resource "google_sql_user" "workload" {
  for_each       = local.db_accounts
  name           = trimsuffix(each.value, ".gserviceaccount.com")
  instance       = google_sql_database_instance.main.name
  type           = "CLOUD_IAM_SERVICE_ACCOUNT"
  database_roles = each.key == "job-migrate" ? ["cloudsqlsuperuser"] : null
}

# Whoever runs terraform apply: cloudsqlsuperuser, the administrator's
# break-glass account (psql through the Auth Proxy), and in lexora_app for
# deploy/first-accounts.
resource "google_sql_user" "terraform_admin" {
  name           = trimsuffix(var.terraform_admin, ".gserviceaccount.com")
  instance       = google_sql_database_instance.main.name
  type           = endswith(var.terraform_admin, ".gserviceaccount.com") ? "CLOUD_IAM_SERVICE_ACCOUNT" : "CLOUD_IAM_USER"
  database_roles = ["cloudsqlsuperuser"]
}

locals {
  db_user = { for k, u in google_sql_user.workload : k => u.name }
  # The migrate job owns the schema; every other workload is in lexora_app,
  # to which the migrate job grants DML on every table after each migration
  # (MIGRATE_GRANT_ROLE, database.GrantTables). terraform_admin is in it
  # too: deploy/first-accounts inserts the first operator.
  app_users = concat([for k, u in local.db_user : u if k != "job-migrate"], [google_sql_user.terraform_admin.name])
  # The outbox tables belong to lexora_outbox_owner (the migrate job gives
  # them, MIGRATE_OUTBOX_OWNER, database.OwnTables), of which the migrate and
  # prune jobs are members: on PostgreSQL 16 only a table's owner may VACUUM
  # it, and prune vacuums what it prunes (outbox.Prune). The role needs
  # CREATE on the schema to be given tables, so its members have it too; on
  # PostgreSQL 17, GRANT MAINTAIN on the four tables would do with less.
  outbox_owners = [local.db_user["job-migrate"], local.db_user["job-prune"]]
  # Database settings, the floor under what the code sets at connect (e.g.
  # behind PgBouncer): no statement or forgotten transaction holds locks or
  # the xmin horizon for long. They are set on the database, not on each
  # role: on PostgreSQL 16 ALTER ROLE on another role needs CREATEROLE with
  # ADMIN OPTION on that role, which no member of cloudsqlsuperuser has on
  # the IAM roles Cloud SQL creates, where ALTER DATABASE needs only the
  # database's ownership (cloudsqlsuperuser's, for a database made through
  # the Admin API). The migrate job asks for more at start-up instead: its
  # DATABASE_STATEMENT_TIMEOUT (10 minutes) and PGOPTIONS' lock_timeout (10 s).
  database_settings = {
    statement_timeout                   = "30s"
    idle_in_transaction_session_timeout = "60s"
  }
  # What the migrate job makes before each migration, in one transaction,
  # acting as cloudsqlsuperuser (SET LOCAL ROLE: its CREATEROLE is not
  # inherited by its members, and the roles it creates are then
  # administered by it, so later runs may grant them); idempotent
  # (jobs/migrate/roles.go). The job's environment, jobs.tf.
  provision_env = {
    MIGRATE_PROVISION_AS      = "cloudsqlsuperuser"
    MIGRATE_APP_MEMBERS       = join(",", local.app_users)
    MIGRATE_OUTBOX_MEMBERS    = join(",", local.outbox_owners)
    MIGRATE_SCHEMA_CREATE     = join(",", [local.db_user["job-migrate"], "lexora_outbox_owner"])
    MIGRATE_DATABASE_SETTINGS = join(",", [for k, v in local.database_settings : "${k}:${v}"])
  }
}
