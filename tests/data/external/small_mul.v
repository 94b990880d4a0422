// A small unsigned multiplier written for accelgen's tests of third-party RTL (tests/fit/test_external.py):
// registered operands, a combinational product, registered output. The clock and reset have other names
// than clk/rst (clock, reset_n: active low), so that the port detection is exercised.
module small_mul #(parameter N = 4) (
    input clock,
    input reset_n,
    input [N-1:0] x,
    input [N-1:0] y,
    output reg [2*N-1:0] p
);
    reg [N-1:0] xr, yr;
    always @(posedge clock) begin
        if (!reset_n) begin
            xr <= 0;
            yr <= 0;
            p <= 0;
        end else begin
            xr <= x;
            yr <= y;
            p <= xr * yr;
        end
    end
endmodule
