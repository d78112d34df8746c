# Metrics from the drain run's summary line (jobs/drain logs one JSON line,
# message "drain run", per task and execution), alerts for the on-call
# engineer, and a dashboard of backlog and deliveries per minute.
locals {
  drain_summary = "resource.type=\"cloud_run_job\" AND resource.labels.job_name=\"drain\" AND jsonPayload.message=\"drain run\""
  # metric => (field of the summary line, description, unit)
  drain_metrics = {
    drain_oldest_due_age = ["jsonPayload.report.oldest_pending_age_seconds", "Age of the oldest due delivery when a drain run ends", "s"]
    drain_backlog        = ["jsonPayload.report.backlog", "Due deliveries left when a drain run ends", "1"]
    drain_delivered      = ["jsonPayload.report.delivered", "Deliveries a drain run delivered", "1"]
    drain_dead           = ["jsonPayload.dead_deliveries", "Dead deliveries in the outbox (all subscribers) when a drain run ends", "1"]
    drain_blocked_keys   = ["jsonPayload.blocked_keys", "Ordering keys held back by a dead head when a drain run ends", "1"]
  }
}

# Every alert's documentation starts with a link to its section of the
# runbook (docs/runbook.md: what it means, how to confirm it, what to do);
# terraform/runbook_test.go fails when an alert has no section or a section
# names no alert. Alert => the section's anchor.
locals {
  runbook = var.runbook_url
  alert_runbook = {
    drain_oldest_due    = "drain-oldest-due-delivery"
    drain_dead          = "dead-deliveries"
    drain_blocked_keys  = "blocked-ordering-keys"
    drain_not_running   = "drain-not-running"
    job_failing_drain   = "drain-failing"
    job_failing_prune   = "prune-failing"
    job_failing_fit     = "fit-failing"
    job_failing_migrate = "migration-failed"
    build_failed        = "build-failed"
    function_5xx        = "function-5xx"
    function_latency    = "function-latency"
    sql_cpu             = "cloud-sql-cpu"
    sql_memory          = "cloud-sql-memory"
    sql_disk            = "cloud-sql-disk"
    sql_connections     = "cloud-sql-connections"
    uptime              = "web-client-down"
    certificate         = "certificate-expiring"
    slo_submit_review   = "submitreview-availability-slo"
    slo_submit_latency  = "submitreview-latency-slo"
    slo_freshness       = "delivery-freshness-slo"
  }
  runbook_link = { for k, anchor in local.alert_runbook : k => "Runbook: ${local.runbook}#${anchor}" }

  # Every alert notifies these: the variable's channels and the on-call email.
  notification_channels = concat(var.alert_notification_channels, [for c in google_monitoring_notification_channel.oncall : c.id])
}

resource "google_monitoring_notification_channel" "oncall" {
  for_each     = var.oncall_email == "" ? toset([]) : toset([var.oncall_email])
  display_name = "Lexora on-call (${each.key})"
  type         = "email"
  labels = {
    email_address = each.key
  }
}

resource "google_logging_metric" "drain" {
  for_each = local.drain_metrics
  name     = "lexora/${each.key}"
  filter   = local.drain_summary
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "DISTRIBUTION"
    unit         = each.value[2]
    display_name = each.value[1]
  }
  value_extractor = "EXTRACT(${each.value[0]})"
  bucket_options {
    exponential_buckets {
      num_finite_buckets = 32
      growth_factor      = 2
      scale              = 1
    }
  }
}

# Counters of drain runs (one summary line per task and execution), all and
# by condition: the alerts count runs in which the condition held, not a
# percentile of a distribution.
locals {
  drain_counters = {
    drain_runs       = ["", "Drain runs (summary lines)"]
    drain_dead_runs  = [" AND jsonPayload.dead_deliveries > 0", "Drain runs that saw dead deliveries"]
    drain_block_runs = [" AND jsonPayload.blocked_keys > 0", "Drain runs that saw blocked ordering keys"]
    drain_late_runs  = [" AND jsonPayload.report.oldest_pending_age_seconds > ${var.delivery_age_alert_seconds}", "Drain runs whose oldest due delivery was older than the alert's bound"]
    drain_fresh_runs = [" AND jsonPayload.report.oldest_pending_age_seconds <= ${var.delivery_freshness_seconds}", "Drain runs whose oldest due delivery was within the freshness objective"]
  }
  # Counter alerts: alert => (counter, what fires it).
  drain_alerts = {
    drain_oldest_due   = ["drain_late_runs", "A due delivery waited more than ${var.delivery_age_alert_seconds} s"]
    drain_dead         = ["drain_dead_runs", "Dead deliveries exist"]
    drain_blocked_keys = ["drain_block_runs", "An ordering key is blocked by a dead delivery"]
  }
}

resource "google_logging_metric" "drain_counter" {
  for_each = local.drain_counters
  name     = "lexora/${each.key}"
  filter   = "${local.drain_summary}${each.value[0]}"
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    unit         = "1"
    display_name = each.value[1]
  }
}

resource "google_monitoring_alert_policy" "drain" {
  for_each     = local.drain_alerts
  display_name = "Lexora: ${each.value[1]}"
  combiner     = "OR"
  conditions {
    display_name = "${each.value[0]} > 0 in 5 minutes"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.drain_counter[each.value[0]].name}\" AND resource.type=\"cloud_run_job\""
      comparison      = "COMPARISON_GT"
      threshold_value = 0
      duration        = "0s"
      aggregations {
        alignment_period     = "300s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
      trigger {
        count = 1
      }
    }
  }
  documentation {
    content   = "${local.runbook_link[each.key]}\n\n${each.value[1]}."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}

# A drain that stops running at all (a paused or deleted scheduler, a job
# that cannot start): no summary line for 5 minutes.
resource "google_monitoring_alert_policy" "drain_not_running" {
  display_name = "Lexora: the drain is not running"
  combiner     = "OR"
  conditions {
    display_name = "no drain run in 5 minutes"
    condition_absent {
      filter   = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.drain_counter["drain_runs"].name}\" AND resource.type=\"cloud_run_job\""
      duration = "300s"
      aggregations {
        alignment_period     = "60s"
        per_series_aligner   = "ALIGN_SUM"
        cross_series_reducer = "REDUCE_SUM"
      }
      trigger {
        count = 1
      }
    }
  }
  documentation {
    content   = "${local.runbook_link["drain_not_running"]}\n\nNo drain run has logged its summary for 5 minutes."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}

# A drain, prune or fit execution failing twice in a row: two failed executions
# and no successful one within two periods.
# A migration failing once: the rollout stopped (deploy/rollout).
locals {
  job_failure_windows = {
    drain   = { window = "3m", failures = 2 }
    prune   = { window = "2h", failures = 2 }
    fit     = { window = "61m", failures = 2 }
    migrate = { window = "1h", failures = 1 }
  }
}

resource "google_monitoring_alert_policy" "job_failing" {
  for_each     = local.job_failure_windows
  display_name = each.value.failures == 1 ? "Lexora: ${each.key} failed" : "Lexora: ${each.key} failed twice in a row"
  combiner     = "OR"
  conditions {
    display_name = "${each.key} executions failing"
    condition_prometheus_query_language {
      query               = "sum(increase(run_googleapis_com:job_completed_execution_count{monitored_resource=\"cloud_run_job\",job_name=\"${each.key}\",result=\"failed\"}[${each.value.window}])) >= ${each.value.failures} unless sum(increase(run_googleapis_com:job_completed_execution_count{monitored_resource=\"cloud_run_job\",job_name=\"${each.key}\",result=\"succeeded\"}[${each.value.window}])) > 0"
      duration            = "0s"
      evaluation_interval = "60s"
    }
  }
  documentation {
    content   = "${local.runbook_link["job_failing_${each.key}"]}\n\nThe ${each.key} job's executions are failing."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}

resource "google_monitoring_dashboard" "outbox" {
  dashboard_json = jsonencode({
    displayName = "Lexora outbox"
    gridLayout = {
      columns = 2
      widgets = [for w in [
        ["Backlog (due deliveries at the end of each drain run)", "drain_backlog", "ALIGN_PERCENTILE_99", "REDUCE_MAX"],
        ["Deliveries per minute", "drain_delivered", "ALIGN_DELTA", "REDUCE_SUM"],
        ["Oldest due delivery (seconds)", "drain_oldest_due_age", "ALIGN_PERCENTILE_99", "REDUCE_MAX"],
        ["Dead deliveries", "drain_dead", "ALIGN_PERCENTILE_99", "REDUCE_MAX"],
        ] : {
        title = w[0]
        xyChart = {
          dataSets = [{
            plotType = "LINE"
            timeSeriesQuery = {
              timeSeriesFilter = {
                filter = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.drain[w[1]].name}\" AND resource.type=\"cloud_run_job\""
                aggregation = {
                  alignmentPeriod    = "60s"
                  perSeriesAligner   = w[2]
                  crossSeriesReducer = w[3]
                }
              }
            }
          }]
        }
      }]
    }
  })
}
