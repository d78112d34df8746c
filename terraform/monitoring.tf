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
  # Alerts on the summary: metric => (threshold, what the on-call engineer reads).
  drain_alerts = {
    drain_oldest_due_age = [300, "A due delivery has waited more than 5 minutes: the drain is not keeping up or not running. Check the drain job's executions and `OutboxHealth`."]
    drain_dead           = [0, "Dead deliveries exist. List them with ListDeadLetters (or `outboxctl dead list`), fix the cause, replay or skip (README: Replaying dead deliveries)."]
    drain_blocked_keys   = [0, "An ordering key is blocked by a dead delivery at its head: later deliveries of that key wait. Replay or skip the dead head."]
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

resource "google_monitoring_alert_policy" "drain" {
  for_each     = local.drain_alerts
  display_name = "Lexora: ${local.drain_metrics[each.key][1]} above ${each.value[0]}"
  combiner     = "OR"
  conditions {
    display_name = "${each.key} > ${each.value[0]}"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.drain[each.key].name}\" AND resource.type=\"cloud_run_job\""
      comparison      = "COMPARISON_GT"
      threshold_value = each.value[0]
      duration        = "0s"
      aggregations {
        alignment_period     = "120s"
        per_series_aligner   = "ALIGN_PERCENTILE_99"
        cross_series_reducer = "REDUCE_MAX"
      }
      trigger {
        count = 1
      }
    }
  }
  documentation {
    content   = each.value[1]
    mime_type = "text/markdown"
  }
  notification_channels = var.alert_notification_channels
}

# A drain or prune execution failing twice in a row: two failed executions
# and no successful one within two periods.
locals {
  job_failure_windows = {
    drain = "3m"
    prune = "2h"
  }
}

resource "google_monitoring_alert_policy" "job_failing" {
  for_each     = local.job_failure_windows
  display_name = "Lexora: ${each.key} failed twice in a row"
  combiner     = "OR"
  conditions {
    display_name = "${each.key} executions failing"
    condition_prometheus_query_language {
      query               = "sum(increase(run_googleapis_com:job_completed_execution_count{monitored_resource=\"cloud_run_job\",job_name=\"${each.key}\",result=\"failed\"}[${each.value}])) >= 2 unless sum(increase(run_googleapis_com:job_completed_execution_count{monitored_resource=\"cloud_run_job\",job_name=\"${each.key}\",result=\"succeeded\"}[${each.value}])) > 0"
      duration            = "0s"
      evaluation_interval = "60s"
    }
  }
  documentation {
    content   = "The ${each.key} job failed twice in a row: read its last executions' logs (`gcloud run jobs executions list --job ${each.key}`), usually the database or its configuration. Deliveries are safe in the outbox meanwhile."
    mime_type = "text/markdown"
  }
  notification_channels = var.alert_notification_channels
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
