# Alerts beyond the outbox (monitoring.tf): each function's errors and
# latency, Cloud SQL's CPU, memory, disk and connections, the web client's
# uptime and certificate, failed builds, and the service level objectives
# with their burn-rate alerts. Each alert's documentation links to its
# section of docs/runbook.md (local.runbook_link).

# Per function (Cloud Run service): the share of 5xx answers over 5 minutes,
# and the 99th percentile latency. PromQL, grouped by service, so each
# function raises its own incident.
locals {
  function_alerts = {
    function_5xx = {
      name  = "a function answers more than ${var.function_5xx_ratio * 100}% 5xx"
      query = "sum by (service_name) (rate(run_googleapis_com:request_count{monitored_resource=\"cloud_run_revision\",response_code_class=\"5xx\"}[5m])) / sum by (service_name) (rate(run_googleapis_com:request_count{monitored_resource=\"cloud_run_revision\"}[5m])) > ${var.function_5xx_ratio}"
    }
    function_latency = {
      name  = "a function's 99th percentile latency is above ${var.function_latency_ms} ms"
      query = "histogram_quantile(0.99, sum by (service_name, le) (rate(run_googleapis_com:request_latencies_bucket{monitored_resource=\"cloud_run_revision\"}[5m]))) > ${var.function_latency_ms}"
    }
    # Cloud SQL: the instance's own metrics; connections against the budget's
    # limit (max_connections less the operators' share, locals.tf).
    sql_cpu = {
      name  = "Cloud SQL CPU above 80%"
      query = "max(cloudsql_googleapis_com:database_cpu_utilization{monitored_resource=\"cloudsql_database\"}) > 0.8"
    }
    sql_memory = {
      name  = "Cloud SQL memory above 90%"
      query = "max(cloudsql_googleapis_com:database_memory_utilization{monitored_resource=\"cloudsql_database\"}) > 0.9"
    }
    sql_disk = {
      name  = "Cloud SQL disk above 85%"
      query = "max(cloudsql_googleapis_com:database_disk_utilization{monitored_resource=\"cloudsql_database\"}) > 0.85"
    }
    sql_connections = {
      name  = "Cloud SQL connections above 90% of the budget's limit"
      query = "sum(cloudsql_googleapis_com:database_postgresql_num_backends{monitored_resource=\"cloudsql_database\"}) > ${floor(0.9 * (var.sql_max_connections - var.sql_operator_connections))}"
    }
  }
}

resource "google_monitoring_alert_policy" "query" {
  for_each     = local.function_alerts
  display_name = "Lexora: ${each.value.name}"
  combiner     = "OR"
  conditions {
    display_name = each.value.name
    condition_prometheus_query_language {
      query               = each.value.query
      duration            = "300s"
      evaluation_interval = "60s"
    }
  }
  documentation {
    content   = "${local.runbook_link[each.key]}\n\n${each.value.name}."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}

# The web client's front page through the load balancer, every minute from
# three regions; with validate_ssl a missing or invalid certificate fails it.
resource "google_monitoring_uptime_check_config" "web" {
  display_name     = "Lexora web client"
  timeout          = "10s"
  period           = "60s"
  selected_regions = ["EUROPE", "USA", "ASIA_PACIFIC"]
  http_check {
    path         = "/"
    port         = 443
    use_ssl      = true
    validate_ssl = true
  }
  monitored_resource {
    type = "uptime_url"
    labels = {
      project_id = var.project_id
      host       = var.domain
    }
  }
}

locals {
  uptime_filter = "resource.type=\"uptime_url\" AND metric.label.check_id=\"${google_monitoring_uptime_check_config.web.uptime_check_id}\""
  uptime_alerts = {
    uptime = {
      name       = "the web client does not answer"
      metric     = "check_passed"
      aligner    = "ALIGN_NEXT_OLDER"
      reducer    = "REDUCE_COUNT_FALSE"
      comparison = "COMPARISON_GT"
      threshold  = 1
    }
    certificate = {
      name       = "the certificate expires within 14 days"
      metric     = "time_until_ssl_cert_expires"
      aligner    = "ALIGN_NEXT_OLDER"
      reducer    = "REDUCE_MIN"
      comparison = "COMPARISON_LT"
      threshold  = 14
    }
  }
}

resource "google_monitoring_alert_policy" "uptime" {
  for_each     = local.uptime_alerts
  display_name = "Lexora: ${each.value.name}"
  combiner     = "OR"
  conditions {
    display_name = each.value.name
    condition_threshold {
      filter          = "metric.type=\"monitoring.googleapis.com/uptime_check/${each.value.metric}\" AND ${local.uptime_filter}"
      comparison      = each.value.comparison
      threshold_value = each.value.threshold
      duration        = "300s"
      aggregations {
        alignment_period     = "1200s"
        per_series_aligner   = each.value.aligner
        cross_series_reducer = each.value.reducer
        group_by_fields      = ["resource.label.host"]
      }
      trigger {
        count = 1
      }
    }
  }
  documentation {
    content   = "${local.runbook_link[each.key]}\n\n${title(each.value.name)}."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}

# A failed build: Cloud Build logs "ERROR: build step N ... failed" when a
# step fails (a superseded build succeeds, deploy/rollout).
resource "google_logging_metric" "build_failures" {
  name   = "lexora/build_failures"
  filter = "resource.type=\"build\" AND textPayload=~\"^ERROR: build step\""
  metric_descriptor {
    metric_kind  = "DELTA"
    value_type   = "INT64"
    unit         = "1"
    display_name = "Failed Cloud Build steps"
  }
}

resource "google_monitoring_alert_policy" "build_failed" {
  display_name = "Lexora: a build failed"
  combiner     = "OR"
  conditions {
    display_name = "a build step failed"
    condition_threshold {
      filter          = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.build_failures.name}\" AND resource.type=\"build\""
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
    content   = "${local.runbook_link["build_failed"]}\n\nA Cloud Build step failed: nothing after it was deployed."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}

# Service level objectives over 28 days, each with a burn-rate alert of two
# windows (Google's SRE workbook): 2% of the month's error budget in an hour
# (burn rate 14.4), or 5% in six hours (6).
resource "google_monitoring_custom_service" "lexora" {
  service_id   = "lexora"
  display_name = "Lexora"
}

locals {
  submit_review = "resource.type=\"cloud_run_revision\" AND resource.label.service_name=\"${local.fn["SubmitReview"].service}\""
  slos = {
    slo_submit_review = {
      id   = "submitreview-availability"
      name = "SubmitReview: ${var.slo_availability * 100}% of requests answer without a 5xx"
      goal = var.slo_availability
      good = ""
      bad  = "metric.type=\"run.googleapis.com/request_count\" AND ${local.submit_review} AND metric.label.response_code_class=\"5xx\""
      all  = "metric.type=\"run.googleapis.com/request_count\" AND ${local.submit_review}"
      cut  = ""
    }
    slo_submit_latency = {
      id   = "submitreview-latency"
      name = "SubmitReview: ${var.slo_latency_goal * 100}% of requests answer within ${var.slo_latency_ms} ms"
      goal = var.slo_latency_goal
      good = ""
      bad  = ""
      all  = ""
      cut  = "metric.type=\"run.googleapis.com/request_latencies\" AND ${local.submit_review}"
    }
    slo_freshness = {
      id   = "delivery-freshness"
      name = "Deliveries: in ${var.slo_freshness_goal * 100}% of drain runs the oldest due delivery is at most ${var.delivery_freshness_seconds} s old"
      goal = var.slo_freshness_goal
      good = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.drain_counter["drain_fresh_runs"].name}\" AND resource.type=\"cloud_run_job\""
      bad  = ""
      all  = "metric.type=\"logging.googleapis.com/user/${google_logging_metric.drain_counter["drain_runs"].name}\" AND resource.type=\"cloud_run_job\""
      cut  = ""
    }
  }
  burn_windows = { fast = ["3600s", 14.4], slow = ["21600s", 6] }
}

resource "google_monitoring_slo" "slo" {
  for_each            = local.slos
  service             = google_monitoring_custom_service.lexora.service_id
  slo_id              = each.value.id
  display_name        = each.value.name
  goal                = each.value.goal
  rolling_period_days = 28

  request_based_sli {
    dynamic "good_total_ratio" {
      for_each = each.value.cut == "" ? [1] : []
      content {
        good_service_filter  = each.value.good == "" ? null : each.value.good
        bad_service_filter   = each.value.bad == "" ? null : each.value.bad
        total_service_filter = each.value.all
      }
    }
    dynamic "distribution_cut" {
      for_each = each.value.cut == "" ? [] : [1]
      content {
        distribution_filter = each.value.cut
        range {
          max = var.slo_latency_ms
        }
      }
    }
  }
}

resource "google_monitoring_alert_policy" "slo_burn" {
  for_each     = local.slos
  display_name = "Lexora SLO burning: ${each.value.name}"
  combiner     = "OR"
  dynamic "conditions" {
    for_each = local.burn_windows
    content {
      display_name = "burn rate over ${conditions.value[1]} in ${conditions.value[0]} (${conditions.key})"
      condition_threshold {
        filter          = "select_slo_burn_rate(\"${google_monitoring_slo.slo[each.key].name}\", \"${conditions.value[0]}\")"
        comparison      = "COMPARISON_GT"
        threshold_value = conditions.value[1]
        duration        = "0s"
      }
    }
  }
  documentation {
    content   = "${local.runbook_link[each.key]}\n\n${each.value.name}: the error budget is burning too fast."
    mime_type = "text/markdown"
  }
  notification_channels = local.notification_channels
}
