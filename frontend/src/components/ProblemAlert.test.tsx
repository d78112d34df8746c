import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/problem";
import type { components } from "../api/schema";
import { fieldName, ProblemAlert } from "./ProblemAlert";

describe("ProblemAlert", () => {
  it("says that Lexora could not be reached instead of the browser's own words for a network failure", () => {
    render(<ProblemAlert error={new TypeError("Failed to fetch")} context="No class created" />);
    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("No class created: Lexora could not be reached");
    expect(alert).toHaveTextContent("Check your connection");
    expect(alert).not.toHaveTextContent("Failed to fetch");
  });

  it("names the fields of a refusal as the forms do, not by their JSON names", () => {
    const error = new ApiError(400, {
      type: "https://lexora.app/problems/validation-failed",
      title: "Invalid request",
      status: 400,
      errors: [
        { field: "join_code", reason: "must be letters and digits only" },
        { field: "due_at", reason: "must be in the future" },
        { field: "some_new_field", reason: "is wrong" },
      ],
    } satisfies components["schemas"]["Problem"]);
    render(<ProblemAlert error={error} />);
    expect(screen.getByRole("list", { name: "Field errors" }).textContent).toBe(
      "Join code: must be letters and digits onlyDue date: must be in the futureSome new field: is wrong",
    );
  });

  it("keeps the API's names only where no word is known: (body), a header", () => {
    expect(fieldName("(body)")).toBe("The request");
    expect(fieldName("Idempotency-Key")).toBe("Idempotency-Key");
    expect(fieldName("url")).toBe("URL");
  });
});
